// The first paint: a returning reader opening the feed sees its first stories as soon as the
// early answer (index.html) has arrived, in the page the app drew on their last visit
// (`snapshot.ts`), while the app's code is still on its way. On a phone that code takes over a
// second to arrive and run; the early answer a third of that. The stand-in is inert and
// hidden from assistive technology: a press on it does nothing, and the app, when it draws
// its first page into `#root`, replaces it in one frame (React empties the container).
//
// It runs before the app, from a file of its own (built by scripts/first-paint.ts, asked for
// by index.html only when there is a snapshot and an early answer), so it imports plain
// functions only: no React.
import { readerPath } from '@/config/paths';
import { FIRST_PAINT_PATH } from '@/lib/first-paint-key';
import type { FeedPage, NewsItem } from '@/lib/api/types';
import { storedSession } from '@/lib/early-feed';
import { formatDate, relativeTime } from '@/lib/relative-time';
import { itemSource, sourceHue } from '@/features/news/source';
import { storySources } from '@/features/news/story';
import { currentBuild, keptSnapshot, type Snapshot } from './snapshot';

/** Cards drawn at most: more than a tall screen shows. */
const MOST = 8;

const setText = (element: Element | null, text: string) => {
  if (element) element.textContent = text;
};

/** The snapshot's card telling `item`'s story. Text goes in as text: nothing of the item is parsed as markup. */
function cardOf(template: Element, item: NewsItem, now: Date): Element {
  const card = template.cloneNode(true) as Element;
  const slot = (name: string) => card.querySelector(`[data-slot="${name}"]`);
  const source = itemSource(item);
  card.setAttribute('data-item-id', item.id);
  const badge = slot('badge');
  setText(badge, source.charAt(0).toUpperCase());
  badge?.classList.add(...sourceHue(source).split(' '));
  setText(slot('source'), source);
  const time = slot('time');
  setText(time, relativeTime(item.published_date, now));
  time?.setAttribute('datetime', item.published_date);
  time?.setAttribute('title', formatDate(item.published_date));
  const title = slot('title');
  setText(title, item.title);
  title?.setAttribute('href', readerPath('feed', item.id));
  setText(slot('summary'), item.summary);
  const sources = slot('sources');
  const label = storySources(item);
  if (label) setText(sources, label);
  else {
    // An item alone: no "· N sources", nor the dot before it on a full card.
    if (sources?.previousElementSibling?.textContent === '·') sources.previousElementSibling.remove();
    sources?.remove();
  }
  const more = card.querySelector('a[data-action="open"]');
  if (item.url && /^https?:\/\//i.test(item.url)) more?.setAttribute('href', item.url);
  else more?.remove();
  return card;
}

/**
 * The stand-in for the feed page: the snapshot's shell with `page`'s first stories in its list;
 * null if it has no list, or if the reader's plan changed since the snapshot (its header would
 * offer the wrong button until the app took over).
 */
export function paintFirst(doc: Document, snapshot: Snapshot, page: FeedPage, now: Date): HTMLElement | null {
  if (page.subscriber !== snapshot.subscriber) return null;
  const host = doc.createElement('div');
  host.setAttribute('data-first-paint', '');
  host.setAttribute('aria-hidden', 'true');
  host.inert = true;
  host.innerHTML = snapshot.shell;
  const list = host.querySelector('[data-card-list]');
  const template = doc.createElement('template');
  template.innerHTML = snapshot.card;
  const card = template.content.firstElementChild;
  if (!list || !card) return null;
  list.append(...page.items.slice(0, MOST).map((item) => cardOf(card, item, now)));
  return host;
}

/** Resolves once the page's style sheets have loaded: a card drawn before them would be drawn unstyled. */
const styled = (doc: Document) =>
  Promise.all(
    [...doc.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')]
      .filter((link) => !link.sheet)
      .map((link) => new Promise((done) => ['load', 'error'].forEach((event) => link.addEventListener(event, done, { once: true })))),
  );

/**
 * Draws the first paint if everything for it is there: the feed itself (no other view, no
 * reader open over it), the early answer, a snapshot of this account and build, and a `#root`
 * the app has not drawn into yet.
 */
export async function firstPaint(win: Window & typeof globalThis): Promise<void> {
  const doc = win.document;
  const early = win.__radarEarlyFeed;
  if (!early || !FIRST_PAINT_PATH.test(win.location.pathname) || win.location.search) return;
  const snapshot = keptSnapshot(win.localStorage, storedSession(win.localStorage)?.user?.id, currentBuild(doc));
  if (!snapshot) return;
  const page = await early;
  await styled(doc);
  const root = doc.getElementById('root');
  if (!page?.items?.length || !root || root.firstChild) return;
  const host = paintFirst(doc, snapshot, page, new Date());
  if (host) root.append(host);
}
