import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { delay, http, HttpResponse, type RequestHandler } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DropsView } from '@/features/news/components/drops-view';
import { FeedView } from '@/features/news/components/feed-view';
import { ItemSetsProvider } from '@/features/news/components/item-sets-provider';
import { newsItem, renderWithProviders } from '@/test/render';
import { byQuery, lists, server } from '@/test/server';

const auth = vi.hoisted(() => ({ isSubscriber: false, recheckSubscription: () => {} }));
vi.mock('@/lib/auth', () => ({
  useAuth: () => ({ user: { id: 'u1' }, isSubscriber: auth.isSubscriber, subscriptionKnown: true, recheckSubscription: auth.recheckSubscription }),
}));

const items = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => newsItem(from + i));
const page = (list: unknown[], rest: { nextCursor?: string | null; hasMore?: boolean; subscriber?: boolean; total?: number } = {}) => ({
  items: list,
  nextCursor: rest.nextCursor ?? null,
  hasMore: rest.hasMore ?? false,
  limit: list.length,
  total: rest.total ?? list.length,
  subscriber: rest.subscriber ?? auth.isSubscriber,
});
/** The feed's pages by cursor ('' for the first), empty lists, and `more` handlers. */
function serve(pages: Record<string, unknown>, ...more: RequestHandler[]) {
  server.use(...lists(), byQuery('/api/news', Object.fromEntries(Object.entries(pages).map(([cursor, p]) => [cursor && `cursor=${cursor}`, p]))), ...more);
}

const feed = () =>
  renderWithProviders(
    <ItemSetsProvider>
      <FeedView />
    </ItemSetsProvider>,
  );

beforeEach(() => {
  localStorage.clear();
  auth.recheckSubscription = () => {};
});

describe('FeedView', () => {
  it('draws what the server sent and offers Subscribe Now when the allowance is reached', async () => {
    auth.isSubscriber = false;
    serve({ '': page(items(0, 5), { hasMore: true }) });
    feed();
    expect(await screen.findAllByTestId('news-card')).toHaveLength(5);
    expect(screen.getByRole('link', { name: 'Subscribe Now' })).toHaveAttribute('href', '/subscribe');
    expect(screen.queryByRole('button', { name: 'Read More' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Key takeaways' })).toBeNull();
    // The server's source name, and the card opens the in-app reader.
    expect(screen.getAllByText('Example0')[0]).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Story 0' })).toHaveAttribute('href', '/app?view=feed&item=item-0');
  });

  it('reads on with the cursor while the server hands one', async () => {
    auth.isSubscriber = true;
    serve({
      '': page(items(0, 20), { nextCursor: 'c1', hasMore: true }),
      c1: page(items(20, 40), { nextCursor: 'c2', hasMore: true }),
    });
    const user = userEvent.setup();
    feed();
    expect(await screen.findAllByTestId('news-card')).toHaveLength(20);
    await user.click(screen.getByRole('button', { name: 'Read More' }));
    await vi.waitFor(() => expect(screen.getAllByTestId('news-card')).toHaveLength(40), { timeout: 5000 });
    expect(screen.getByRole('button', { name: 'Read More' })).toBeInTheDocument();
  }, 20_000);

  it('is refilled from the server after a story is marked read', async () => {
    auth.isSubscriber = false;
    let read = false;
    serve(
      { '': () => page(items(read ? 1 : 0, read ? 6 : 5), { hasMore: true }) },
      http.post('/api/read/item-0', () => {
        read = true;
        return HttpResponse.json({ success: true, clientSideOnly: false, marks: { favorite: false, hidden: false, read: true } });
      }),
    );
    const user = userEvent.setup();
    feed();
    const first = await screen.findByRole('link', { name: 'Story 0' });
    await user.click(within(first.closest('article')!).getByRole('button', { name: 'Mark as read' }));
    await screen.findByRole('link', { name: 'Story 5' });
    expect(screen.getAllByTestId('news-card')).toHaveLength(5);
    expect(screen.queryByRole('link', { name: 'Story 0' })).toBeNull();
  });

  it('draws the server’s key takeaways for subscribers', async () => {
    auth.isSubscriber = true;
    serve(
      { '': page([newsItem(1)]) },
      http.get('/api/news/item-1/takeaways', () =>
        HttpResponse.json({
          itemId: 'item-1',
          cards: [{ title: 'From the server', tags: ['Tag'], description: 'Described.' }],
          summary: 'This story matters most for testing.',
          personalized: true,
        }),
      ),
    );
    const user = userEvent.setup();
    feed();
    await user.click(await screen.findByRole('button', { name: 'Key takeaways' }));
    const dialog = await screen.findByRole('dialog', { name: 'Personalized Key Takeaways' });
    expect(await within(dialog).findByText('From the server')).toBeInTheDocument();
    expect(within(dialog).getByText('This story matters most for testing.')).toBeInTheDocument();
    await user.click(within(dialog).getAllByRole('button', { name: 'Close' })[0]);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('asks for the subscription again when the feed disagrees with the app', async () => {
    auth.isSubscriber = false;
    const recheck = vi.fn();
    auth.recheckSubscription = recheck;
    serve({ '': page(items(0, 20), { nextCursor: 'c1', hasMore: true, subscriber: true }) });
    feed();
    await screen.findAllByTestId('news-card');
    await vi.waitFor(() => expect(recheck).toHaveBeenCalled());
  });

  it('shows five skeletons while loading', async () => {
    auth.isSubscriber = false;
    server.use(http.all('/api/*', () => delay('infinite')));
    feed();
    expect(screen.getAllByTestId('news-skeleton')).toHaveLength(5);
  });
});

const drops = () =>
  renderWithProviders(
    <ItemSetsProvider>
      <DropsView />
    </ItemSetsProvider>,
  );

describe('DropsView', () => {
  it('walks a free reader to the paywall after the last story of the allowance', async () => {
    auth.isSubscriber = false;
    serve({ '': page(items(0, 5), { hasMore: true }) });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    drops();
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
    serve({ '': page(items(0, 10)) });
    const user = userEvent.setup();
    drops();
    const story = await screen.findByRole('button', { name: 'Next story' });
    await user.click(story);
    await user.click(screen.getByRole('button', { name: 'Next story' }));
    expect(screen.getByTestId('drop-story')).toHaveAttribute('data-index', '1');
  });

  it('steps with j and k, and the last story does not advance', async () => {
    auth.isSubscriber = true;
    serve({ '': page(items(0, 2)) });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    drops();
    const section = await screen.findByRole('region', { name: 'Drops' });
    fireEvent.keyDown(section, { key: 'j' });
    expect(screen.getByTestId('drop-story')).toHaveAttribute('data-index', '1');
    expect(screen.queryByRole('button', { name: 'Next story' })).toBeNull();
    vi.advanceTimersByTime(301);
    fireEvent.keyDown(section, { key: 'k' });
    expect(screen.getByTestId('drop-story')).toHaveAttribute('data-index', '0');
    vi.useRealTimers();
  });

  it('pages on for a subscriber reading past the first page', async () => {
    auth.isSubscriber = true;
    serve({
      '': page(items(0, 4), { nextCursor: 'c1', hasMore: true, total: 8 }),
      c1: page(items(4, 8), { total: 8 }),
    });
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    drops();
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
    serve({ '': page([]) });
    drops();
    expect(await screen.findByText('No news items available')).toBeInTheDocument();
  });
});
