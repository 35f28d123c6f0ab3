import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, isSubscriptionRequired, onServerReachable, request, requestTolerant, setTokenSource } from '@/lib/api-client';
import { server } from '@/test/server';

/** Answers every request to `path` with `body` as it is (not re-encoded) and `status`. */
const respond = (path: string, status: number, body: string | null, statusText = '') =>
  server.use(http.all(path, () => new HttpResponse(body, { status, statusText })));

afterEach(() => setTokenSource(async () => null));

describe('request', () => {
  it('sends the bearer token, JSON body, Accept and cookies', async () => {
    let sent: Request | undefined;
    server.use(
      http.post('/api/x', ({ request }) => {
        sent = request.clone();
        return HttpResponse.json({ ok: true });
      }),
    );
    setTokenSource(async () => 'tok');
    await expect(request('/api/x', { method: 'POST', body: { a: 1 } })).resolves.toEqual({ ok: true });
    expect(sent?.method).toBe('POST');
    expect(sent?.headers.get('Authorization')).toBe('Bearer tok');
    expect(sent?.headers.get('Content-Type')).toBe('application/json');
    expect(sent?.headers.get('Accept')).toBe('application/json');
    expect(sent?.credentials).toBe('include');
    expect(await sent?.text()).toBe('{"a":1}');
  });

  it('goes without a token when the session cannot be read', async () => {
    let authorization: string | null = 'unset';
    server.use(
      http.get('/api/x', ({ request }) => {
        authorization = request.headers.get('Authorization');
        return HttpResponse.json([]);
      }),
    );
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    setTokenSource(async () => {
      throw new Error('broken storage');
    });
    await request('/api/x');
    expect(authorization).toBeNull();
    expect(warn).toHaveBeenCalled();
  });

  it('answers nothing for a 204', async () => {
    respond('/api/x', 204, null);
    await expect(request('/api/x', { method: 'PUT', body: {} })).resolves.toBeUndefined();
  });

  it('turns a failure into "<status>: <body>"', async () => {
    respond('/api/x', 404, '{"error":"not_found","message":"no such item"}');
    await expect(request('/api/x')).rejects.toThrow('404: {"error":"not_found","message":"no such item"}');
  });

  it('keeps the daemon’s message apart, to show it as it is', async () => {
    respond('/api/search', 400, '{"error":"invalid_query","message":"a quote is not closed"}');
    const error = (await request('/api/search?q=%22').catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('invalid_query');
    expect(error.detail).toBe('a quote is not closed');
    respond('/api/x', 400, 'not json');
    expect(((await request('/api/x').catch((e: unknown) => e)) as ApiError).detail).toBeNull();
  });

  it('uses the status text when the body is empty', async () => {
    respond('/api/x', 503, null, 'Service Unavailable');
    const error = await request('/api/x').catch((e: ApiError) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).message).toBe('503: Service Unavailable');
  });
});

describe('requestTolerant', () => {
  it('gives nothing for a 401', async () => {
    respond('/api/favorites', 401, '{"error":"unauthorized"}');
    await expect(requestTolerant('/api/favorites')).resolves.toBeNull();
  });
  it('still fails on other errors', async () => {
    respond('/api/favorites', 500, 'boom');
    await expect(requestTolerant('/api/favorites')).rejects.toThrow('500: boom');
  });
});

describe('error codes', () => {
  it('keeps the daemon’s error code and says when the server answered', async () => {
    const reachable = vi.fn();
    const stop = onServerReachable(reachable);
    respond('/api/news', 403, '{"error":"subscription_required","message":"Subscribe"}');
    const error = await request('/api/news?cursor=x').catch((e: unknown) => e);
    expect(isSubscriptionRequired(error)).toBe(true);
    expect(reachable).toHaveBeenCalledTimes(1);
    respond('/api/news', 502, 'oops');
    const other = await request('/api/news').catch((e: unknown) => e);
    expect(isSubscriptionRequired(other)).toBe(false);
    expect(reachable).toHaveBeenCalledTimes(1);
    stop();
  });
});
