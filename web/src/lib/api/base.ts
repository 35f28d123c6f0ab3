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

/** Set while a sign-out runs: it settles true once the session has ended. */
let ending: Promise<boolean> | null = null;

/** Why a request was not sent: it was asked for while the session it would carry ended. */
export class SessionEnded extends Error {
  constructor() {
    super('Not sent: the session ended');
    this.name = 'SessionEnded';
  }
}

/**
 * Runs a sign-out. Requests asked for meanwhile (a badge's timer, a refetch on focus) wait for
 * it: once it has ended the session they are dropped, since they were for the account that left
 * and the server would answer 401; when it failed, they go. `ended` says which it was.
 */
export async function endSession<T>(signOut: () => Promise<T>, ended: (outcome: T) => boolean): Promise<T> {
  const running = signOut();
  const settled = running.then(ended, () => false);
  ending = settled;
  try {
    return await running;
  } finally {
    if (ending === settled) ending = null;
  }
}

/** Waits for a sign-out that is running; throws `SessionEnded` when it ended the session. */
export async function unlessSessionEnding(): Promise<void> {
  if (ending && (await ending)) throw new SessionEnded();
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
