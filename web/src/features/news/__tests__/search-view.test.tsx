import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { useLocation } from 'react-router';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { HeaderSearch } from '@/components/layouts/header-search';
import { ItemSetsProvider } from '@/features/news/components/item-sets-provider';
import { SearchView } from '@/features/news/components/search-view';
import { newsItem, renderWithProviders } from '@/test/render';
import { byQuery, lists, requests, server } from '@/test/server';

vi.mock('@/lib/auth', () => ({
  useAuth: () => ({ user: { id: 'u1' }, isSubscriber: false, subscriptionKnown: true, recheckSubscription: () => {} }),
}));

/** A result whose title and snippet mark `word` (code point ranges, as the server counts them). */
function hit(n: number, word = 'agents') {
  const item = newsItem(n, { title: `Über ${word} ${n}` });
  const at = Array.from('Über ').length;
  const snippet = `🤖 The ${word} planned`;
  const from = Array.from('🤖 The ').length;
  return {
    ...item,
    highlights: {
      title: { text: item.title, ranges: [[at, at + word.length]] },
      summary: { text: item.summary, ranges: [] },
      snippet: { field: 'content', text: snippet, ranges: [[from, from + word.length]] },
    },
  };
}
const hits = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => hit(from + i));
const page = (items: unknown[], nextCursor: string | null, hasMore: boolean, total = items.length) => ({
  items,
  nextCursor,
  hasMore,
  limit: items.length,
  total,
  subscriber: nextCursor !== null,
});
/** Search answers keyed by query ('q=agents', 'q=agents&cursor=c1'), and empty lists. */
const serve = (answers: Record<string, unknown>) => server.use(...lists(), byQuery('/api/search', answers));
/** The queries the app sent to /api/search. */
const asked = () => requests().filter((r) => r.path === '/api/search').map((r) => r.query);

const results = (q: string) =>
  renderWithProviders(
    <ItemSetsProvider>
      <SearchView q={q} />
    </ItemSetsProvider>,
  );

beforeEach(() => localStorage.clear());

describe('SearchView', () => {
  it('draws the results as feed cards with the matched words marked, and Subscribe Now at the allowance', async () => {
    serve({ 'q=agents': page(hits(0, 5), null, true) });
    results('agents');
    expect(screen.getByLabelText('Searching')).toHaveAttribute('aria-busy', 'true');
    const cards = await screen.findAllByTestId('news-card');
    expect(cards).toHaveLength(5);
    expect(screen.getByTestId('search-count')).toHaveTextContent('5+ results for “agents”');
    const first = within(cards[0]);
    expect(first.getByRole('link', { name: 'Über agents 0' })).toHaveAttribute('href', '/app?view=search&q=agents&item=item-0');
    const marks = cards[0].querySelectorAll('mark');
    expect([...marks].map((m) => m.textContent)).toEqual(['agents', 'agents']);
    expect(first.getByTestId('search-snippet')).toHaveTextContent('🤖 The agents planned');
    expect(screen.getByRole('link', { name: 'Subscribe Now' })).toHaveAttribute('href', '/subscribe');
    expect(screen.queryByRole('button', { name: 'Read More' })).toBeNull();
    // The feed's actions, on a result.
    expect(first.getByRole('button', { name: 'Mark as read' })).toBeInTheDocument();
    expect(first.getByRole('button', { name: 'Hide' })).toBeInTheDocument();
  });

  it('reads on with the server’s cursor and the same query', async () => {
    serve({
      'q=multi+agent': page(hits(0, 3), 'c1', true, 4),
      'q=multi+agent&cursor=c1': page(hits(3, 4), null, false, 4),
    });
    const user = userEvent.setup();
    results('multi agent');
    expect(await screen.findAllByTestId('news-card')).toHaveLength(3);
    expect(screen.getByTestId('search-count')).toHaveTextContent('4 results for “multi agent”');
    await user.click(screen.getByRole('button', { name: 'Read More' }));
    await vi.waitFor(() => expect(screen.getAllByTestId('news-card')).toHaveLength(4));
    expect(screen.queryByRole('button', { name: 'Read More' })).toBeNull();
    expect(screen.queryByRole('link', { name: 'Subscribe Now' })).toBeNull();
    expect(asked()).toEqual(['q=multi+agent', 'q=multi+agent&cursor=c1']);
  });

  it('says there is nothing for the query, with what to try next', async () => {
    serve({ 'q=zzxqv': page([], null, false) });
    results('zzxqv');
    expect(await screen.findByRole('heading', { name: 'No results for “zzxqv”' })).toBeInTheDocument();
    expect(screen.getByTestId('search-hint')).toHaveTextContent('source:theverge');
    expect(screen.getByRole('link', { name: 'Back to Feed' })).toHaveAttribute('href', '/app');
  });

  it('shows the server’s own message for a malformed query', async () => {
    const message = 'a quote is not closed: add a closing " after "open';
    server.use(
      ...lists(),
      http.get('/api/search', ({ request }) =>
        new URL(request.url).searchParams.get('q') === '"open'
          ? HttpResponse.json({ error: 'invalid_query', message }, { status: 400 })
          : HttpResponse.json({ error: 'not_found' }, { status: 404 }),
      ),
    );
    results('"open');
    expect(await screen.findByTestId('search-error')).toHaveTextContent(message);
    expect(screen.getByRole('heading', { name: 'This search cannot be run' })).toBeInTheDocument();
  });

  it('asks nothing for an empty query', async () => {
    serve({});
    results('  ');
    expect(await screen.findByRole('heading', { name: 'Search every story' })).toBeInTheDocument();
    expect(asked()).toEqual([]);
  });
});

function Where() {
  const location = useLocation();
  return <output data-testid="where">{location.pathname + location.search}</output>;
}

describe('HeaderSearch', () => {
  it('is focused by /, goes to the results on Enter, and Esc clears it', async () => {
    const user = userEvent.setup();
    renderWithProviders(
      <>
        <HeaderSearch />
        <textarea aria-label="Notes" />
        <Where />
      </>,
      { route: '/profile' },
    );
    const box = screen.getByRole('searchbox', { name: 'Search stories' });
    await user.keyboard('/');
    expect(box).toHaveFocus();
    expect(box).toHaveValue('');
    await user.type(box, '  “distillation” -survey {Enter}');
    expect(screen.getByTestId('where')).toHaveTextContent('/app?view=search&q=%E2%80%9Cdistillation%E2%80%9D%20-survey');
    expect(box).not.toHaveFocus();
    // The box shows the query of the results on screen.
    expect(box).toHaveValue('“distillation” -survey');

    // `/` typed in a field is just a character.
    await user.click(screen.getByLabelText('Notes'));
    await user.keyboard('a/b');
    expect(screen.getByLabelText('Notes')).toHaveValue('a/b');
    expect(box).not.toHaveFocus();

    await user.click(box);
    await user.keyboard('{Escape}');
    expect(box).toHaveValue('');
    expect(box).not.toHaveFocus();

    // An empty query goes nowhere.
    await user.click(box);
    await user.keyboard('   {Enter}');
    expect(screen.getByTestId('where')).toHaveTextContent('/app?view=search&q=%E2%80%9Cdistillation%E2%80%9D%20-survey');
  });
});
