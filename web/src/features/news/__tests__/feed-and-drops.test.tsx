import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DropsView } from '@/features/news/components/drops-view';
import { FeedView } from '@/features/news/components/feed-view';
import { ItemSetsProvider } from '@/features/news/components/item-sets-provider';
import { fakeFetch, newsItem, renderWithProviders, type FakeRoute } from '@/test/render';

const auth = vi.hoisted(() => ({ isSubscriber: false }));
vi.mock('@/lib/auth', () => ({ useAuth: () => ({ user: { id: 'u1' }, isSubscriber: auth.isSubscriber }) }));

const items = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => newsItem(from + i));
const emptyLists: FakeRoute[] = ['/api/favorites', '/api/hidden', '/api/read'].map((path) => ({ path, body: [] }));

function serve(routes: FakeRoute[]) {
  vi.stubGlobal('fetch', vi.fn(fakeFetch([...emptyLists, ...routes])));
}

beforeEach(() => localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

describe('FeedView', () => {
  it('shows 5 to a free user and offers Subscribe Now', async () => {
    auth.isSubscriber = false;
    serve([{ path: '/api/news', body: { items: items(0, 5), nextCursor: null, hasMore: true, limit: 5 } }]);
    renderWithProviders(<ItemSetsProvider><FeedView /></ItemSetsProvider>);
    expect(await screen.findAllByTestId('news-card')).toHaveLength(5);
    expect(screen.getByRole('link', { name: 'Subscribe Now' })).toHaveAttribute('href', '/subscribe');
    expect(screen.queryByRole('button', { name: 'Read More' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Key takeaways' })).toBeNull();
    // Citations are stripped from what the card shows.
    expect(screen.getByText('Summary 0')).toBeInTheDocument();
  });

  it('shows 20 to a subscriber and 20 more per Read More', async () => {
    auth.isSubscriber = true;
    serve([
      { path: '/api/news', body: { items: items(0, 20), nextCursor: 'c1', hasMore: true, limit: 20 } },
      { path: '/api/news?cursor=c1', body: { items: items(20, 40), nextCursor: 'c2', hasMore: true, limit: 20 } },
    ]);
    const user = userEvent.setup();
    renderWithProviders(<ItemSetsProvider><FeedView /></ItemSetsProvider>);
    expect(await screen.findAllByTestId('news-card')).toHaveLength(20);
    await user.click(screen.getByRole('button', { name: 'Read More' }));
    await vi.waitFor(() => expect(screen.getAllByTestId('news-card')).toHaveLength(40));
    expect(screen.getByRole('button', { name: 'Read More' })).toBeInTheDocument();
  });

  it('opens the key takeaways for subscribers', async () => {
    auth.isSubscriber = true;
    serve([{ path: '/api/news', body: { items: [newsItem(1, { title: 'Generative AI for business' })], nextCursor: null, hasMore: false, limit: 20 } }]);
    const user = userEvent.setup();
    renderWithProviders(<ItemSetsProvider><FeedView /></ItemSetsProvider>);
    await user.click(await screen.findByRole('button', { name: 'Key takeaways' }));
    const dialog = await screen.findByRole('dialog', { name: 'Personalized Key Takeaways' });
    expect(within(dialog).getByText('AI Adoption')).toBeInTheDocument();
    await user.click(within(dialog).getAllByRole('button', { name: 'Close' })[0]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('shows five skeletons while loading', async () => {
    auth.isSubscriber = false;
    vi.stubGlobal('fetch', vi.fn(() => new Promise<Response>(() => {})));
    renderWithProviders(<ItemSetsProvider><FeedView /></ItemSetsProvider>);
    expect(screen.getAllByTestId('news-skeleton')).toHaveLength(5);
  });
});

describe('DropsView', () => {
  it('walks a free user to the paywall after the 5th story', async () => {
    auth.isSubscriber = false;
    serve([{ path: '/api/news', body: { items: items(0, 5), nextCursor: null, hasMore: true, limit: 5 } }]);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderWithProviders(<ItemSetsProvider><DropsView /></ItemSetsProvider>);
    for (let i = 0; i < 5; i++) {
      await vi.waitFor(() => expect(screen.getByTestId('drop-story')).toHaveAttribute('data-index', String(i)));
      expect(screen.getByTestId('drop-text')).toHaveTextContent(`Short ${i}`);
      await user.click(screen.getByRole('button', { name: 'Next story' }));
      vi.advanceTimersByTime(301);
    }
    expect(await screen.findByText('Premium Content')).toBeInTheDocument();
    expect(
      screen.getByText("You've reached the free limit of 5 stories. Subscribe now to unlock unlimited access to all AI news."),
    ).toBeInTheDocument();
    vi.useRealTimers();
  });

  it('ignores a second tap within 300 ms', async () => {
    auth.isSubscriber = true;
    serve([{ path: '/api/news', body: { items: items(0, 10), nextCursor: null, hasMore: false, limit: 20 } }]);
    const user = userEvent.setup();
    renderWithProviders(<ItemSetsProvider><DropsView /></ItemSetsProvider>);
    const story = await screen.findByRole('button', { name: 'Next story' });
    await user.click(story);
    await user.click(screen.getByRole('button', { name: 'Next story' }));
    expect(screen.getByTestId('drop-story')).toHaveAttribute('data-index', '1');
  });

  it('loads the next page for a subscriber reading past the first', async () => {
    auth.isSubscriber = true;
    serve([
      { path: '/api/news', body: { items: items(0, 4), nextCursor: 'c1', hasMore: true, limit: 20 } },
      { path: '/api/news?cursor=c1', body: { items: items(4, 8), nextCursor: null, hasMore: false, limit: 20 } },
    ]);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderWithProviders(<ItemSetsProvider><DropsView /></ItemSetsProvider>);
    for (let i = 0; i < 6; i++) {
      await vi.waitFor(() => expect(screen.getByTestId('drop-story')).toHaveAttribute('data-index', String(i)));
      await vi.waitFor(() => expect(screen.getByRole('button', { name: 'Next story' })).toBeInTheDocument());
      await user.click(screen.getByRole('button', { name: 'Next story' }));
      vi.advanceTimersByTime(301);
    }
    await vi.waitFor(() => expect(screen.getByTestId('drop-text')).toHaveTextContent('Short 6'));
    expect(screen.getByRole('img', { name: 'Story 7 of 8' })).toBeInTheDocument();
    vi.useRealTimers();
  });

  it('says so when there is nothing', async () => {
    serve([{ path: '/api/news', body: { items: [], nextCursor: null, hasMore: false, limit: 5 } }]);
    renderWithProviders(<ItemSetsProvider><DropsView /></ItemSetsProvider>);
    expect(await screen.findByText('No news items available')).toBeInTheDocument();
  });
});
