import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ItemSetsProvider } from '@/features/news/components/item-sets-provider';
import { NewsCard, type CardView } from '@/features/news/components/news-card';
import { fakeFetch, newsItem, renderWithProviders, type FakeRoute } from '@/test/render';

vi.mock('@/lib/auth', () => ({
  useAuth: () => ({ user: { id: 'u1' }, isSubscriber: false, subscriptionKnown: true, recheckSubscription: () => {} }),
}));

const item = newsItem(1);

function setup(routes: FakeRoute[], view: CardView = 'feed') {
  vi.stubGlobal('fetch', vi.fn(fakeFetch(routes)));
  return renderWithProviders(
    <ItemSetsProvider>
      <NewsCard item={item} view={view} />
    </ItemSetsProvider>,
  );
}

const lists = (favorites: unknown[] = [], hidden: unknown[] = [], read: unknown[] = []): FakeRoute[] => [
  { path: '/api/favorites', body: favorites },
  { path: '/api/hidden', body: hidden },
  { path: '/api/read', body: read },
];

beforeEach(() => localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

describe('ItemSetsProvider with a card', () => {
  it('updates at once, stores locally and saves to the server', async () => {
    const user = userEvent.setup();
    setup([...lists(), { method: 'POST', path: '/api/favorites/item-1', body: { success: true, clientSideOnly: false } }]);
    await user.click(screen.getByRole('button', { name: 'Favorite', pressed: false }));
    expect(screen.getByRole('button', { name: 'Favorite', pressed: true })).toHaveAttribute('aria-pressed', 'true');
    expect(JSON.parse(localStorage.getItem('userFavorites')!)).toEqual(['item-1']);
    const calls = (fetch as unknown as ReturnType<typeof vi.fn>).mock.calls.map(([url, init]) => `${init?.method ?? 'GET'} ${url}`);
    expect(calls).toContain('POST /api/favorites/item-1');
  });

  it('marking read takes the item out of favourites', async () => {
    const user = userEvent.setup();
    setup([...lists([item]), { method: 'POST', path: '/api/read/item-1', body: { success: true } }]);
    expect(await screen.findByRole('button', { name: 'Favorite', pressed: true })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Mark as read' }));
    expect(screen.getByRole('button', { name: 'Favorite', pressed: false })).toHaveAttribute('aria-pressed', 'false');
    expect(JSON.parse(localStorage.getItem('userReadItems')!)).toEqual(['item-1']);
    expect(JSON.parse(localStorage.getItem('userFavorites')!)).toEqual([]);
  });

  it('keeps the local change and warns when the server fails', async () => {
    const user = userEvent.setup();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    setup([...lists(), { method: 'POST', path: '/api/hidden/item-1', status: 500, body: { error: 'internal' } }]);
    await user.click(screen.getByRole('button', { name: 'Hide' }));
    expect(JSON.parse(localStorage.getItem('userHiddenItems')!)).toEqual(['item-1']);
    const region = await screen.findByRole('region', { name: /notifications/i });
    expect(
      await within(region).findByText('Server had issues hiding this item, but your app state has been updated.', { exact: true }),
    ).toBeInTheDocument();
    expect(within(region).getByText('Warning', { exact: true })).toBeInTheDocument();
  });

  it('keeps a mark made while the server is unreachable and sends it when it is back', async () => {
    const user = userEvent.setup();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    let online = false;
    const answer = fakeFetch([...lists(), { method: 'POST', path: '/api/hidden/item-1', body: { success: true, clientSideOnly: false, marks: { favorite: false, hidden: true, read: false } } }]);
    const fetchMock = vi.fn((input: RequestInfo | URL, init?: RequestInit) =>
      init?.method === 'POST' && !online ? Promise.reject(new TypeError('Failed to fetch')) : answer(input, init),
    );
    vi.stubGlobal('fetch', fetchMock);
    renderWithProviders(
      <ItemSetsProvider>
        <NewsCard item={item} view="feed" />
      </ItemSetsProvider>,
    );
    await user.click(screen.getByRole('button', { name: 'Hide' }));
    const region = await screen.findByRole('region', { name: /notifications/i });
    expect(await within(region).findByText('Server had issues hiding this item, but your app state has been updated.', { exact: true })).toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem('radarPendingMarks')!)).toEqual([{ userId: 'u1', kind: 'hidden', id: 'item-1', on: true }]);

    online = true;
    await act(async () => {
      window.dispatchEvent(new Event('online'));
    });
    await vi.waitFor(() => expect(localStorage.getItem('radarPendingMarks')).toBeNull());
    const posts = fetchMock.mock.calls.filter(([, init]) => init?.method === 'POST');
    expect(posts.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(localStorage.getItem('userHiddenItems')!)).toEqual(['item-1']);
  });

  it('merges the server lists on load', async () => {
    localStorage.setItem('userFavorites', JSON.stringify(['local-only']));
    setup(lists([item]));
    expect(await screen.findByRole('button', { name: 'Favorite', pressed: true })).toBeInTheDocument();
    await act(async () => {});
    expect(JSON.parse(localStorage.getItem('userFavorites')!).sort()).toEqual(['item-1', 'local-only']);
  });
});

describe('card actions per view (docs/product.md §4)', () => {
  const names = () => within(screen.getByTestId('news-card')).queryAllByRole('button').map((b) => b.getAttribute('aria-label') ?? b.textContent);

  it.each<[CardView, string[]]>([
    ['feed', ['Favorite', 'Mark as read', 'Hide', 'Share on LinkedIn']],
    ['favorites', ['Favorite', 'Hide', 'Share on LinkedIn']],
    ['read', ['Mark as read', 'Share on LinkedIn']],
    ['trash', ['Restore']],
    ['shared', ['Favorite', 'Mark as read', 'Share on LinkedIn']],
  ])('%s shows %j', (view, expected) => {
    setup(lists(), view);
    expect(names()).toEqual(expected);
    expect(screen.queryAllByRole('link', { name: /^More/ })).toHaveLength(view === 'trash' ? 0 : 1);
  });
});
