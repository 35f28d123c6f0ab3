import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse, type RequestHandler } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ItemSetsProvider } from '@/features/news/components/item-sets-provider';
import { NewsCard, type CardView } from '@/features/news/components/news-card';
import { newsItem, renderWithProviders } from '@/test/render';
import { lists, requests, server } from '@/test/server';

vi.mock('@/lib/auth', () => ({
  useAuth: () => ({ user: { id: 'u1' }, isSubscriber: false, subscriptionKnown: true, recheckSubscription: () => {} }),
}));

const item = newsItem(1);

function setup(handlers: RequestHandler[], view: CardView = 'feed') {
  server.use(...handlers);
  return renderWithProviders(
    <ItemSetsProvider>
      <NewsCard item={item} view={view} />
    </ItemSetsProvider>,
  );
}

const marked = (marks: Partial<Record<'favorite' | 'hidden' | 'read', boolean>> = {}) =>
  HttpResponse.json({ success: true, clientSideOnly: false, marks: { favorite: false, hidden: false, read: false, ...marks } });

beforeEach(() => localStorage.clear());

describe('ItemSetsProvider with a card', () => {
  it('updates at once, stores locally and saves to the server', async () => {
    const user = userEvent.setup();
    setup([...lists(), http.post('/api/favorites/item-1', () => marked({ favorite: true }))]);
    await user.click(screen.getByRole('button', { name: 'Favorite', pressed: false }));
    expect(screen.getByRole('button', { name: 'Favorite', pressed: true })).toHaveAttribute('aria-pressed', 'true');
    expect(JSON.parse(localStorage.getItem('userFavorites')!)).toEqual(['item-1']);
    await vi.waitFor(() => expect(requests().map((r) => `${r.method} ${r.path}`)).toContain('POST /api/favorites/item-1'));
  });

  it('marking read takes the item out of favourites', async () => {
    const user = userEvent.setup();
    setup([...lists([item]), http.post('/api/read/item-1', () => marked({ read: true }))]);
    expect(await screen.findByRole('button', { name: 'Favorite', pressed: true })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Mark as read' }));
    expect(screen.getByRole('button', { name: 'Favorite', pressed: false })).toHaveAttribute('aria-pressed', 'false');
    expect(JSON.parse(localStorage.getItem('userReadItems')!)).toEqual(['item-1']);
    expect(JSON.parse(localStorage.getItem('userFavorites')!)).toEqual([]);
  });

  it('keeps the local change and warns when the server fails', async () => {
    const user = userEvent.setup();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    setup([...lists(), http.post('/api/hidden/item-1', () => HttpResponse.json({ error: 'internal' }, { status: 500 }))]);
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
    let posts = 0;
    setup([
      ...lists(),
      http.post('/api/hidden/item-1', () => {
        posts += 1;
        return online ? marked({ hidden: true }) : HttpResponse.error();
      }),
    ]);
    await user.click(screen.getByRole('button', { name: 'Hide' }));
    const region = await screen.findByRole('region', { name: /notifications/i });
    expect(await within(region).findByText('Server had issues hiding this item, but your app state has been updated.', { exact: true })).toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem('radarPendingMarks')!)).toEqual([{ userId: 'u1', kind: 'hidden', id: 'item-1', on: true }]);

    online = true;
    await act(async () => {
      window.dispatchEvent(new Event('online'));
    });
    await vi.waitFor(() => expect(localStorage.getItem('radarPendingMarks')).toBeNull());
    expect(posts).toBeGreaterThanOrEqual(2);
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
