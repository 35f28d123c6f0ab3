import { act, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FeedView } from '@/features/news/components/feed-view';
import { DENSITY_KEY, setDensity } from '@/features/news/density';
import { ItemSetsProvider } from '@/features/news/components/item-sets-provider';
import { paintFirst } from '@/features/news/first-paint/paint';
import { STORAGE_KEYS } from '@/features/news/item-sets';
import { keepSnapshot, keptSnapshot, snapshotOf } from '@/features/news/first-paint/snapshot';
import type { FeedPage, NewsItem } from '@/lib/api/types';
import { FIRST_PAINT_KEY } from '@/lib/first-paint-key';
import { newsItem, renderWithProviders } from '@/test/render';
import { byQuery, lists, server } from '@/test/server';

vi.mock('@/lib/auth', () => ({
  useAuth: () => ({ user: { id: 'u1' }, isSubscriber: false, subscriptionKnown: true, recheckSubscription: () => {} }),
}));

const page = (items: unknown[]) => ({ items, nextCursor: null, hasMore: false, limit: items.length, total: items.length, subscriber: false }) as unknown as FeedPage;

/** The feed drawn by the app for `items` (into `root` when given); answers the page's root. */
async function drawFeed(items: unknown[], root?: HTMLElement) {
  server.use(...lists(), byQuery('/api/news', { '': page(items) }));
  const { container, unmount } = renderWithProviders(
    <ItemSetsProvider>
      <FeedView />
    </ItemSetsProvider>,
    { container: root },
  );
  await screen.findAllByTestId('news-card');
  return { container, unmount };
}

/** A card as the first paint compares it: without its test id and its words for screen readers. */
function comparable(card: Element) {
  const copy = card.cloneNode(true) as Element;
  copy.removeAttribute('data-testid');
  copy.querySelectorAll('[data-testid]').forEach((e) => e.removeAttribute('data-testid'));
  copy.querySelector('[data-slot="more-label"]')?.remove();
  return copy.outerHTML;
}

beforeEach(() => localStorage.clear());

/** Draws the feed for `items` in a `#root`, as the app does, and answers the snapshot it keeps. */
async function keptAfter(items: unknown[]) {
  const root = document.body.appendChild(Object.assign(document.createElement('div'), { id: 'root' }));
  const feed = await drawFeed(items, root);
  await waitFor(() => expect(keptSnapshot(localStorage, 'u1', '')).not.toBeNull());
  return {
    ...feed,
    snapshot: keptSnapshot(localStorage, 'u1', '')!,
    done: () => {
      feed.unmount();
      root.remove();
    },
  };
}

describe('first paint', () => {
  it.each(['comfortable', 'compact', 'list'])('draws each story in exactly the card the app draws for it, its text as text (%s)', async (density) => {
    localStorage.setItem(DENSITY_KEY, density);
    // The last page showed items alone, one of them read and one a favourite.
    localStorage.setItem(STORAGE_KEYS.favorites, JSON.stringify(['item-0']));
    localStorage.setItem(STORAGE_KEYS.read, JSON.stringify(['item-1']));
    const last = await keptAfter([newsItem(0), newsItem(1)]);
    expect(last.container.querySelector('[data-action="favorite"][aria-pressed="true"]')).not.toBeNull();
    const { snapshot } = last;
    last.done();
    localStorage.removeItem(STORAGE_KEYS.favorites);
    localStorage.removeItem(STORAGE_KEYS.read);
    expect(snapshot.card).not.toMatch(/Story 0|Summary 0|item-0|example0|first-paint-sample|A story|What it says|2 sources|aria-pressed="true"|data-read/i);
    expect(snapshot.card).toContain('data-slot="sources"');
    expect(snapshot.shell).not.toContain('data-testid');

    const next: NewsItem[] = [
      newsItem(7, { source: 'Reuters' }),
      newsItem(8, { title: '<img src=x onerror="alert(1)"> & co', url: 'javascript:alert(1)' }),
      newsItem(9, { source: null, url: null }),
      newsItem(10, { story: { id: 's2', sources: 5, outlets: [] } }),
    ] as NewsItem[];
    const host = paintFirst(document, snapshot, page(next), new Date())!;
    expect(host.inert).toBe(true);
    expect(host.getAttribute('aria-hidden')).toBe('true');
    const painted = [...host.querySelectorAll('article')];
    expect(host.querySelector('img')).toBeNull();
    expect(painted[1].querySelector('h2')!.textContent).toBe('<img src=x onerror="alert(1)"> & co');
    expect(painted[1].querySelector('a[data-action="open"]')).toBeNull();

    // The app draws the same cards, but for the script address (React blocks it its own way).
    const app = await drawFeed(next);
    const drawn = [...app.container.querySelectorAll('[data-testid="news-card"]')];
    expect(drawn).toHaveLength(4);
    expect([painted[0], painted[2], painted[3]].map(comparable)).toEqual([drawn[0], drawn[2], drawn[3]].map(comparable));
    expect(painted[3].textContent).toContain('5 sources');
  });

  it('is kept by the feed once it shows its stories, and kept again when the density changes', async () => {
    const { snapshot: comfortable, done } = await keptAfter([newsItem(0), newsItem(1)]);
    expect(comfortable.card).toContain('data-slot="summary"');

    // The header's density toggle, as the reader clicks it: the card drawn again without its summary.
    act(() => setDensity('compact'));
    await waitFor(() => expect(keptSnapshot(localStorage, 'u1', '')!.card).not.toBe(comfortable.card));
    expect(keptSnapshot(localStorage, 'u1', '')!.card).not.toContain('data-slot="summary"');
    done();
  });

  it('is kept with the plan it shows, and not drawn once the reader’s plan changed', async () => {
    // The feed keeps it with the plan the app knows (a free reader here, as mocked above).
    const { snapshot, done } = await keptAfter([newsItem(0)]);
    expect(snapshot.subscriber).toBe(false);
    done();
    expect(paintFirst(document, snapshot, page([newsItem(1)]), new Date())).not.toBeNull();
    // The early answer says the reader subscribed since: the header would offer "Subscribe Now".
    const subscribed = { ...page([newsItem(1)]), subscriber: true };
    expect(paintFirst(document, snapshot, subscribed, new Date())).toBeNull();
    // A snapshot that does not say its plan is not drawn either.
    localStorage.setItem(FIRST_PAINT_KEY, JSON.stringify({ ...snapshot, subscriber: undefined }));
    expect(keptSnapshot(localStorage, 'u1', '')).toBeNull();
  });

  it('is kept for one account and one build, of a page with a card list only', async () => {
    const { container } = await drawFeed([newsItem(0)]);
    const card = container.querySelector('article')!;
    expect(snapshotOf(document.createElement('div'), card, 'u1', 'b1', false)).toBeNull();
    keepSnapshot(localStorage, container, card, 'u1', 'b1', false);
    expect(localStorage.getItem(FIRST_PAINT_KEY)).toContain('"user":"u1"');
    expect(keptSnapshot(localStorage, 'u1', 'b1')?.user).toBe('u1');
    expect(keptSnapshot(localStorage, 'u2', 'b1')).toBeNull();
    expect(keptSnapshot(localStorage, 'u1', 'b2')).toBeNull();
    expect(keptSnapshot(localStorage, undefined, 'b1')).toBeNull();
    localStorage.setItem(FIRST_PAINT_KEY, '{not json');
    expect(keptSnapshot(localStorage, 'u1', 'b1')).toBeNull();
  });
});
