// The one HTTP client of the app: JSON in and out, the session's bearer token when there is
// one, cookies included, and a non-success answer turned into "<status>: <body or status text>".

export type TokenSource = () => Promise<string | null>;

let tokenSource: TokenSource = async () => null;

/** Called by the auth provider once the auth client exists. */
export function setTokenSource(source: TokenSource) {
  tokenSource = source;
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

/** A string field (`error`, `message`) of the daemon's `{"error","message"}` body, when there is one. */
function fieldOf(text: string, field: 'error' | 'message'): string | null {
  try {
    const body: unknown = JSON.parse(text);
    if (!body || typeof body !== 'object') return null;
    const value: unknown = (body as Record<string, unknown>)[field];
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

async function bearer(): Promise<string | null> {
  try {
    return await tokenSource();
  } catch (error) {
    // docs/product.md §6: a session that cannot be read is logged and the request goes without a token.
    console.warn('Could not read the session; sending the request without a token', error);
    return null;
  }
}

export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  const token = await bearer();
  if (token) headers.Authorization = `Bearer ${token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    headers,
    body,
    credentials: 'include',
    signal: options.signal,
  });
  if (response.status < 500) reachableListeners.forEach((listener) => listener());
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    throw new ApiError(response.status, `${response.status}: ${text || response.statusText}`, fieldOf(text, 'error'), fieldOf(text, 'message'));
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/** "Tolerant 401" of docs/product.md §7: an anonymous or expired caller gets nothing instead of an error. */
export async function requestTolerant<T>(path: string, options: RequestOptions = {}): Promise<T | null> {
  try {
    return await request<T>(path, options);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export const api = {
  get: <T>(path: string, signal?: AbortSignal) => request<T>(path, { signal }),
  post: <T>(path: string, body?: unknown) => request<T>(path, { method: 'POST', body }),
  patch: <T>(path: string, body?: unknown) => request<T>(path, { method: 'PATCH', body }),
  put: <T>(path: string, body?: unknown) => request<T>(path, { method: 'PUT', body }),
  delete: <T>(path: string) => request<T>(path, { method: 'DELETE' }),
};
