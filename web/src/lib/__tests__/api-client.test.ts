import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, client, endSession, isSubscriptionRequired, onServerReachable, SessionEnded, setTokenSource, tolerant, unwrap } from '@/lib/api-client';
import { server } from '@/test/server';

/** Answers every request to `path` with `body` as it is (not re-encoded) and `status`. */
const respond = (path: string, status: number, body: string | null, statusText = '') =>
  server.use(http.all(path, () => new HttpResponse(body, { status, statusText })));

afterEach(() => setTokenSource(async () => null));

describe('the client', () => {
  it('sends the bearer token, JSON body, Accept and cookies', async () => {
    let sent: Request | undefined;
    server.use(
      http.patch('/api/user/profile', ({ request }) => {
        sent = request.clone();
        return HttpResponse.json({ resume: 'Mine', markOnOpen: true });
      }),
    );
    setTokenSource(async () => 'tok');
    await expect(unwrap(client.PATCH('/api/user/profile', { body: { resume: 'Mine' } }))).resolves.toEqual({ resume: 'Mine', markOnOpen: true });
    expect(sent?.method).toBe('PATCH');
    expect(sent?.headers.get('Authorization')).toBe('Bearer tok');
    expect(sent?.headers.get('Content-Type')).toBe('application/json');
    expect(sent?.headers.get('Accept')).toBe('application/json');
    expect(sent?.credentials).toBe('include');
    expect(await sent?.text()).toBe('{"resume":"Mine"}');
  });

  it('goes without a token when the session cannot be read', async () => {
    let authorization: string | null = 'unset';
    server.use(
      http.get('/api/favorites', ({ request }) => {
        authorization = request.headers.get('Authorization');
        return HttpResponse.json([]);
      }),
    );
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    setTokenSource(async () => {
      throw new Error('broken storage');
    });
    await expect(unwrap(client.GET('/api/favorites'))).resolves.toEqual([]);
    expect(authorization).toBeNull();
    expect(warn).toHaveBeenCalled();
  });

  it('fills in path parameters, encoded, and leaves out a query parameter that is null', async () => {
    const asked: string[] = [];
    server.use(
      http.get('/api/news/:id', ({ request }) => {
        asked.push(new URL(request.url).pathname);
        return HttpResponse.json({ id: 'a/b', title: 'T', summary: 'S', published_date: '2026-01-01T00:00:00Z' });
      }),
      http.get('/api/news', ({ request }) => {
        asked.push(new URL(request.url).search);
        return HttpResponse.json({ items: [], nextCursor: null, hasMore: false, limit: 0, total: 0, subscriber: false });
      }),
    );
    await unwrap(client.GET('/api/news/{news_id}', { params: { path: { news_id: 'a/b' } } }));
    await unwrap(client.GET('/api/news', { params: { query: { cursor: null } } }));
    await unwrap(client.GET('/api/news', { params: { query: { cursor: 'c 1' } } }));
    expect(asked).toEqual(['/api/news/a%2Fb', '', '?cursor=c%201']);
  });

  it('answers nothing for a 204', async () => {
    respond('/api/read-before', 204, null);
    await expect(unwrap(client.PUT('/api/read-before', { body: { readBefore: null } }))).resolves.toBeUndefined();
  });

  it('turns a failure into "<status>: <body>"', async () => {
    respond('/api/news/:id', 404, '{"error":"not_found","message":"no such item"}');
    await expect(unwrap(client.GET('/api/news/{news_id}', { params: { path: { news_id: 'x' } } }))).rejects.toThrow(
      '404: {"error":"not_found","message":"no such item"}',
    );
  });

  it('keeps the daemon’s message apart, to show it as it is', async () => {
    respond('/api/search', 400, '{"error":"invalid_query","message":"a quote is not closed"}');
    const error = (await unwrap(client.GET('/api/search', { params: { query: { q: '"' } } })).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('invalid_query');
    expect(error.detail).toBe('a quote is not closed');
    respond('/api/search', 400, 'not json');
    const other = (await unwrap(client.GET('/api/search', { params: { query: { q: 'x' } } })).catch((e: unknown) => e)) as ApiError;
    expect(other.message).toBe('400: not json');
    expect(other.detail).toBeNull();
  });

  it('uses the status text when the body is empty', async () => {
    respond('/api/unread', 503, null, 'Service Unavailable');
    const error = await unwrap(client.GET('/api/unread')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).message).toBe('503: Service Unavailable');
  });
});

describe('tolerant', () => {
  it('gives nothing for a 401', async () => {
    respond('/api/favorites', 401, '{"error":"unauthorized"}');
    await expect(tolerant(client.GET('/api/favorites'))).resolves.toBeNull();
  });
  it('still fails on other errors', async () => {
    respond('/api/favorites', 500, 'boom');
    await expect(tolerant(client.GET('/api/favorites'))).rejects.toThrow('500: boom');
  });
});

describe('error codes', () => {
  it('keeps the daemon’s error code and says when the server answered', async () => {
    const reachable = vi.fn();
    const stop = onServerReachable(reachable);
    respond('/api/news', 403, '{"error":"subscription_required","message":"Subscribe"}');
    const error = await unwrap(client.GET('/api/news', { params: { query: { cursor: 'x' } } })).catch((e: unknown) => e);
    expect(isSubscriptionRequired(error)).toBe(true);
    expect(reachable).toHaveBeenCalledTimes(1);
    respond('/api/news', 502, 'oops');
    const other = await unwrap(client.GET('/api/news')).catch((e: unknown) => e);
    expect(isSubscriptionRequired(other)).toBe(false);
    expect(reachable).toHaveBeenCalledTimes(1);
    stop();
  });
});

describe('a sign-out', () => {
  /** A sign-out that ends (or fails) when the test says, and the requests that reached the server. */
  function pendingSignOut() {
    let finish!: (error: string | null) => void;
    const outcome = new Promise<{ error: string | null }>((resolve) => (finish = (error) => resolve({ error })));
    const running = endSession(() => outcome, (o) => o.error === null);
    const asked: string[] = [];
    server.use(
      http.get('/api/alerts', ({ request }) => {
        asked.push(request.headers.get('Authorization') ?? '');
        return HttpResponse.json({ alerts: [], unseen: 0 });
      }),
    );
    return { finish, running, asked };
  }

  it('holds what is asked meanwhile and drops it once the session has ended', async () => {
    setTokenSource(async () => 'leaving');
    const { finish, running, asked } = pendingSignOut();
    const read = unwrap(client.GET('/api/alerts')).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(asked).toEqual([]);
    finish(null);
    await expect(running).resolves.toEqual({ error: null });
    expect(await read).toBeInstanceOf(SessionEnded);
    expect(asked).toEqual([]);
    // What is asked after the sign-out goes out as usual.
    await unwrap(client.GET('/api/alerts'));
    expect(asked).toEqual(['Bearer leaving']);
  });

  it('lets what it held go when the sign-out failed', async () => {
    setTokenSource(async () => 'staying');
    const { finish, running, asked } = pendingSignOut();
    const read = unwrap(client.GET('/api/alerts'));
    finish('network down');
    await expect(running).resolves.toEqual({ error: 'network down' });
    await expect(read).resolves.toEqual({ alerts: [], unseen: 0 });
    expect(asked).toEqual(['Bearer staying']);
  });
});
