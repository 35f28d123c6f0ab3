// A signed-in reader opening the app gets their first feed page requested at once: an inline
// script in index.html asks for it with the access token the auth client stored on the last
// visit, while the app's scripts download, and leaves the promise on `window`. The feed query
// takes that answer instead of asking again; without a usable token, or when the answer is not
// a feed, the query asks as usual once auth is ready.
import type { FeedPage } from '@/lib/api/types';

declare global {
  interface Window {
    __radarEarlyFeed?: Promise<FeedPage | null>;
    __radarEarlyPage?: FeedPage | null;
  }
}

/** Where the auth client keeps the session (docs/product.md §1: `{product}-auth`). */
export const AUTH_STORAGE_KEY = 'radar-auth';

/** A token that will not expire before an answer arrives (index.html uses the same margin). */
const TOKEN_MARGIN_S = 10;

export interface StoredSession {
  access_token: string;
  expires_at: number;
  user?: { id: string; email?: string };
}

/** The session the auth client stored, when its access token is still good; else null. */
export function storedSession(storage: Storage, nowSeconds = Date.now() / 1000): StoredSession | null {
  try {
    const session = JSON.parse(storage.getItem(AUTH_STORAGE_KEY) ?? 'null') as Partial<StoredSession> | null;
    if (!session?.access_token || !session.expires_at || session.expires_at < nowSeconds + TOKEN_MARGIN_S) return null;
    return session as StoredSession;
  } catch {
    return null;
  }
}

/** The early answer, once: later reads of the feed always ask the server. */
export function takeEarlyFeed(): Promise<FeedPage | null> | null {
  const answer = window.__radarEarlyFeed ?? null;
  delete window.__radarEarlyFeed;
  return answer;
}

/**
 * The early answer if it has already arrived (index.html notes it), taken like
 * `takeEarlyFeed`; else null, and the answer stays for the feed query to wait for. Lets the
 * first render draw the stories at once instead of drawing the feed empty and then again.
 */
export function takeArrivedEarlyFeed(): FeedPage | null {
  const page = window.__radarEarlyPage;
  if (!page || !window.__radarEarlyFeed) return null;
  delete window.__radarEarlyFeed;
  return page;
}
