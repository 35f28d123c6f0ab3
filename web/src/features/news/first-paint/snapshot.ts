// The first paint's snapshot: the page the app drew last, kept to draw the next visit's first
// stories before the app's code has arrived (web/README.md "Speed"). It is React's own markup:
// the page around the feed (header, views, toolbar) and one card emptied of its story (a sample
// story's, see `keep-first-paint.tsx`), which `paint.ts` fills with each story of the early feed
// answer. Of the reader's data it holds only what the shell shows (the plan's button, and on
// wide screens the test checkout with the start of the account's id); it is kept per account
// and per build, and removed at sign-out.
import { sourceHue } from '@/features/news/source';
import { FIRST_PAINT_KEY } from '@/lib/first-paint-key';

/** Larger markup than this is not kept: parsing it would cost a phone more than it saves. */
const LARGEST = 200_000;

export interface Snapshot {
  /** The build the markup came from: see [`currentBuild`]. */
  build: string;
  /** The account it was drawn for. */
  user: string;
  /** Whether that account was a subscriber then: the shell's header shows the plan's button. */
  subscriber: boolean;
  /** The page's markup in `#root`, with its card list emptied. */
  shell: string;
  /** One story's card emptied of it: its slots blank, a story's "· N sources" among them. */
  card: string;
}

/**
 * The running build, as the page names it: its entry script's address, whose hash changes with
 * any chunk's. A snapshot of another build is not drawn: its classes may be missing from this
 * build's style sheet, and its markup from this build's cards.
 */
export const currentBuild = (doc: Document): string => doc.querySelector('script[type="module"][src]')?.getAttribute('src') ?? '';

/**
 * The snapshot of the feed page drawn in `root`, with `story` as its card (a story's card as the
 * feed draws it, without marks of the reader's); null when `root` shows no card list.
 * Left out: what the page draws from answers that arrive after the first story (`data-first-paint="omit"`:
 * the unread count, the alerts badge, the offline banner), and the test ids, so that a test
 * never takes the stand-in for the page.
 */
export function snapshotOf(root: Element, story: Element, user: string, build: string, subscriber: boolean): Snapshot | null {
  // The page alone: not what the app draws beside it in `#root` (the toasts' region).
  const page = [...root.children].find((child) => child.matches('[data-card-list]') || child.querySelector('[data-card-list]'));
  const shell = page?.cloneNode(true) as Element | undefined;
  const list = shell?.matches('[data-card-list]') ? shell : shell?.querySelector('[data-card-list]');
  if (!shell || !list) return null;
  // A story's: it has the place of the "· 5 sources", which `paint.ts` fills for a story and
  // removes for an item alone.
  const card = story.cloneNode(true) as Element;
  list.replaceChildren();
  shell.querySelectorAll('[data-first-paint="omit"]').forEach((e) => e.remove());
  // The link's words for screen readers are the story's own (the stand-in is hidden from them).
  card.querySelector('[data-slot="more-label"]')?.remove();
  const badge = card.querySelector('[data-slot="badge"]');
  badge?.classList.remove(...sourceHue(card.querySelector('[data-slot="source"]')?.textContent ?? '').split(' '));
  // Emptied of its story (its attributes kept in place, blank): `paint.ts` fills every slot and link.
  const blank = (element: Element | null, names: string[]) => names.forEach((name) => element?.hasAttribute(name) && element.setAttribute(name, ''));
  card.querySelectorAll('[data-slot]').forEach((slot) => {
    slot.textContent = '';
    blank(slot, ['href', 'datetime', 'title']);
  });
  blank(card.querySelector('a[data-action="open"]'), ['href']);
  blank(card, ['data-item-id']);
  for (const tree of [shell, card]) [tree, ...tree.querySelectorAll('[data-testid]')].forEach((e) => e.removeAttribute('data-testid'));
  const snapshot = { build, user, subscriber, shell: shell.outerHTML, card: card.outerHTML };
  return snapshot.shell.length + snapshot.card.length > LARGEST ? null : snapshot;
}

/** Keeps the snapshot of the page in `root` for the next visit (a full storage keeps the last one). */
export function keepSnapshot(storage: Storage, root: Element, story: Element, user: string, build: string, subscriber: boolean): void {
  const snapshot = snapshotOf(root, story, user, build, subscriber);
  if (!snapshot) return;
  try {
    storage.setItem(FIRST_PAINT_KEY, JSON.stringify(snapshot));
  } catch {
    // Storage full or refused: the next visit draws its first stories with the app, as before.
  }
}

/** The kept snapshot, when it was drawn for `user` by this build; else null. */
export function keptSnapshot(storage: Storage, user: string | undefined, build: string): Snapshot | null {
  try {
    const snapshot = JSON.parse(storage.getItem(FIRST_PAINT_KEY) ?? 'null') as Partial<Snapshot> | null;
    if (!snapshot || !user || snapshot.user !== user || snapshot.build !== build) return null;
    if (typeof snapshot.shell !== 'string' || typeof snapshot.card !== 'string' || typeof snapshot.subscriber !== 'boolean') return null;
    return snapshot as Snapshot;
  } catch {
    return null;
  }
}
