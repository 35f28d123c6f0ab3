// A signed-in reader opening the app gets their first feed page requested at once, in
// parallel with the auth client's start-up, with the access token the auth client stored on
// the last visit. The feed query takes that answer instead of asking again; when there is no
// usable token, or the answer is not a feed, the query asks as usual once auth is ready.
import type { FeedPage } from '@/lib/api/types';

/** Where the auth client keeps the session (spec 1: `{product}-auth`). */
export const AUTH_STORAGE_KEY = 'radar-auth';

/** Pages that show the feed first. */
const FEED_PATHS = ['/app', '/tv-mode'];

/** A token that will not expire before the answer arrives. */
const TOKEN_MARGIN_S = 10;

let early: Promise<FeedPage | null> | null = null;

/** The stored access token when it is still good, else null. */
export function storedAccessToken(storage: Storage, nowSeconds = Date.now() / 1000): string | null {
  try {
    const session = JSON.parse(storage.getItem(AUTH_STORAGE_KEY) ?? 'null') as { access_token?: string; expires_at?: number } | null;
    if (!session?.access_token || !session.expires_at || session.expires_at < nowSeconds + TOKEN_MARGIN_S) return null;
    return session.access_token;
  } catch {
    return null;
  }
}

/** Starts the request when the page shows the feed and a session is stored. */
export function startEarlyFeed(pathname: string, storage: Storage = localStorage) {
  if (!FEED_PATHS.includes(pathname)) return;
  const token = storedAccessToken(storage);
  if (!token) return;
  early = fetch('/api/news', { headers: { Accept: 'application/json', Authorization: `Bearer ${token}` }, credentials: 'include' })
    .then((answer) => (answer.ok ? (answer.json() as Promise<FeedPage>) : null))
    .catch(() => null);
}

/** The early answer, once: later reads of the feed always ask the server. */
export function takeEarlyFeed(): Promise<FeedPage | null> | null {
  const answer = early;
  early = null;
  return answer;
}
