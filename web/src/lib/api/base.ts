// What the HTTP client (lib/api-client.ts) shares with the first script: the error it throws,
// the session's token source and the listeners told when the daemon answers. No HTTP code
// lives here, so the landing page, which imports this through the auth provider and the
// query client, does not carry the client; the client's own chunk loads when a call is made.

export type TokenSource = () => Promise<string | null>;

let tokenSource: TokenSource = async () => null;

/** Called by the auth provider once the auth client exists. */
export function setTokenSource(source: TokenSource) {
  tokenSource = source;
}

/** The session's access token, or null: without a session, or when it cannot be read. */
export async function bearer(): Promise<string | null> {
  try {
    return await tokenSource();
  } catch (error) {
    // docs/product.md §6: a session that cannot be read is logged and the request goes without a token.
    console.warn('Could not read the session; sending the request without a token', error);
    return null;
  }
}

export class ApiError extends Error {
  readonly status: number;
  /** The `error` code of the daemon's `{"error","message"}` body, when it sent one. */
  readonly code: string | null;
  /** The `message` of that body: what the daemon says was wrong, fit to show a reader. */
  readonly detail: string | null;
  constructor(status: number, message: string, code: string | null = null, detail: string | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.detail = detail;
  }
}

/** The daemon's answer when only a subscriber may do what was asked: the app reads the account again. */
export const isSubscriptionRequired = (error: unknown) =>
  error instanceof ApiError && error.status === 403 && error.code === 'subscription_required';

type Listener = () => void;
const reachableListeners = new Set<Listener>();

/**
 * Called after every answer the daemon itself gave (any status below 500: it is up and
 * working), so work that waited for the server, such as marks made offline, goes out at once.
 */
export function onServerReachable(listener: Listener): () => void {
  reachableListeners.add(listener);
  return () => reachableListeners.delete(listener);
}

/** Tells the listeners of `onServerReachable` that the daemon answered. */
export function serverReached() {
  reachableListeners.forEach((listener) => listener());
}
