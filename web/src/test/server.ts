// The network of the unit tests: one MSW server for every test file, started in setup.ts.
// A test adds the answers it needs with `server.use(...)`; they are dropped after each test,
// and a request no handler answers fails (`onUnhandledRequest: 'error'`).
//
// Handlers name the app's relative addresses ('/api/news'): MSW reads them against the page's
// location, as the client does (vite.config.ts `test.environment` is jsdom, whose page is
// http://localhost:3000).
import { http, HttpResponse, type JsonBodyType } from 'msw';
import { setupServer } from 'msw/node';

export const server = setupServer();

/** A request the app made: its method, path and query (in URLSearchParams form, '' for none). */
export interface Sent {
  method: string;
  path: string;
  query: string;
}

const sent: Sent[] = [];
server.events.on('request:start', ({ request }) => {
  const url = new URL(request.url);
  sent.push({ method: request.method, path: url.pathname, query: url.searchParams.toString() });
});

/** Every request the app made since the test began, answered or not. */
export const requests = (): Sent[] => [...sent];

/** Called after each test (setup.ts). */
export function forgetRequests() {
  sent.length = 0;
}

/** The reader's three lists (favourites, hidden, read), empty unless given. */
export function lists(favorites: unknown[] = [], hidden: unknown[] = [], read: unknown[] = []) {
  return [
    http.get('/api/favorites', () => HttpResponse.json(favorites)),
    http.get('/api/hidden', () => HttpResponse.json(hidden)),
    http.get('/api/read', () => HttpResponse.json(read)),
  ];
}

/**
 * GET `path`, answered per query: `answers` is keyed by the query in URLSearchParams form
 * ('' for none, 'cursor=c1', 'q=multi+agent&cursor=c1'); a value may be a function giving the
 * answer at the time of the call (a server whose state changes). Any other query gets a 404.
 */
export function byQuery(path: string, answers: Record<string, unknown>) {
  return http.get(path, ({ request }) => {
    const query = new URL(request.url).searchParams.toString();
    if (!Object.hasOwn(answers, query)) return HttpResponse.json({ error: 'not_found', message: `no answer for ?${query}` }, { status: 404 });
    const answer = answers[query];
    return HttpResponse.json((typeof answer === 'function' ? answer() : answer) as JsonBodyType);
  });
}
