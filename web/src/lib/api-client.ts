// The one HTTP client of the app, typed from the daemon's OpenAPI document
// (web/openapi.json → src/lib/api/schema.d.ts): paths, path and query parameters, bodies and
// answers are typed from the schema, so a call site names no type of its own:
//
//   unwrap(client.GET('/api/news/{news_id}', { params: { path: { news_id: id } }, signal }))
//
// Every call sends the session's bearer token when there is one, cookies and
// `Accept: application/json`; `unwrap` gives the answer's data (undefined for a 204) or throws
// an `ApiError` "<status>: <body or status text>" with the code and message of the daemon's
// `{"error","message"}` body.
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '@/lib/api/schema';
import { ApiError, bearer, serverReached, unlessSessionEnding } from '@/lib/api/base';

export { ApiError, endSession, isSubscriptionRequired, onServerReachable, SessionEnded, setTokenSource, type TokenSource } from '@/lib/api/base';

/**
 * The bearer token on the way out (nothing goes out while a sign-out ends the session); on the
 * way back, that the daemon answered (any status below 500).
 */
const session: Middleware = {
  async onRequest({ request }) {
    await unlessSessionEnding();
    const token = await bearer();
    if (token) request.headers.set('Authorization', `Bearer ${token}`);
  },
  onResponse({ response }) {
    if (response.status < 500) serverReached();
  },
};

export const client = createClient<paths>({
  // The page's own origin: what a relative address means in the browser, spelled out for
  // Request, which takes only absolute addresses outside one (the unit tests).
  baseUrl: window.location.origin,
  headers: { Accept: 'application/json' },
  credentials: 'include',
  // The global fetch as it is at the time of the call, so network stubs installed later see it.
  fetch: (request) => globalThis.fetch(request),
});
client.use(session);

/** What openapi-fetch answers: the data, or the error body (parsed when it is JSON). */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** A string field (`error`, `message`) of the daemon's `{"error","message"}` body, when there is one. */
function fieldOf(body: unknown, field: 'error' | 'message'): string | null {
  if (!body || typeof body !== 'object') return null;
  const value: unknown = (body as Record<string, unknown>)[field];
  return typeof value === 'string' ? value : null;
}

/**
 * The answer's data, or an `ApiError` for a non-success status. openapi-fetch has read a JSON
 * body already; it is written out again for the message (the daemon's compact JSON, unchanged).
 */
export async function unwrap<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const text = typeof error === 'string' ? error : error === undefined ? '' : JSON.stringify(error);
    throw new ApiError(response.status, `${response.status}: ${text || response.statusText}`, fieldOf(error, 'error'), fieldOf(error, 'message'));
  }
  return data as T;
}

/** "Tolerant 401" of docs/product.md §7: an anonymous or expired caller gets nothing instead of an error. */
export async function tolerant<T>(call: Promise<Answer<T>>): Promise<T | null> {
  try {
    return await unwrap(call);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}
