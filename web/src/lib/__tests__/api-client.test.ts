import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, isSubscriptionRequired, onServerReachable, request, requestTolerant, setTokenSource } from '@/lib/api-client';

const respond = (status: number, body: string, statusText = '') =>
  vi.fn(async () => new Response(body || null, { status, statusText }));

afterEach(() => {
  vi.unstubAllGlobals();
  setTokenSource(async () => null);
});

describe('request', () => {
  it('sends the bearer token, JSON body and cookies', async () => {
    const fetchMock = respond(200, '{"ok":true}');
    vi.stubGlobal('fetch', fetchMock);
    setTokenSource(async () => 'tok');
    await expect(request('/api/x', { method: 'POST', body: { a: 1 } })).resolves.toEqual({ ok: true });
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(init.headers).toMatchObject({ Authorization: 'Bearer tok', 'Content-Type': 'application/json' });
    expect(init.body).toBe('{"a":1}');
    expect(init.credentials).toBe('include');
  });

  it('goes without a token when the session cannot be read', async () => {
    const fetchMock = respond(200, '[]');
    vi.stubGlobal('fetch', fetchMock);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    setTokenSource(async () => {
      throw new Error('broken storage');
    });
    await request('/api/x');
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(init.headers).not.toHaveProperty('Authorization');
    expect(warn).toHaveBeenCalled();
  });

  it('turns a failure into "<status>: <body>"', async () => {
    vi.stubGlobal('fetch', respond(404, '{"error":"not_found","message":"no such item"}'));
    await expect(request('/api/x')).rejects.toThrow('404: {"error":"not_found","message":"no such item"}');
  });

  it('keeps the daemon’s message apart, to show it as it is', async () => {
    vi.stubGlobal('fetch', respond(400, '{"error":"invalid_query","message":"a quote is not closed"}'));
    const error = (await request('/api/search?q=%22').catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('invalid_query');
    expect(error.detail).toBe('a quote is not closed');
    vi.stubGlobal('fetch', respond(400, 'not json'));
    expect(((await request('/api/x').catch((e: unknown) => e)) as ApiError).detail).toBeNull();
  });

  it('uses the status text when the body is empty', async () => {
    vi.stubGlobal('fetch', respond(503, '', 'Service Unavailable'));
    const error = await request('/api/x').catch((e: ApiError) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).message).toBe('503: Service Unavailable');
  });
});

describe('requestTolerant', () => {
  it('gives nothing for a 401', async () => {
    vi.stubGlobal('fetch', respond(401, '{"error":"unauthorized"}'));
    await expect(requestTolerant('/api/favorites')).resolves.toBeNull();
  });
  it('still fails on other errors', async () => {
    vi.stubGlobal('fetch', respond(500, 'boom'));
    await expect(requestTolerant('/api/favorites')).rejects.toThrow('500: boom');
  });
});

describe('error codes', () => {
  it('keeps the daemon’s error code and says when the server answered', async () => {
    const reachable = vi.fn();
    const stop = onServerReachable(reachable);
    vi.stubGlobal('fetch', vi.fn(async () => new Response('{"error":"subscription_required","message":"Subscribe"}', { status: 403 })));
    const error = await request('/api/news?cursor=x').catch((e: unknown) => e);
    expect(isSubscriptionRequired(error)).toBe(true);
    expect(reachable).toHaveBeenCalledTimes(1);
    vi.stubGlobal('fetch', vi.fn(async () => new Response('oops', { status: 502 })));
    const other = await request('/api/news').catch((e: unknown) => e);
    expect(isSubscriptionRequired(other)).toBe(false);
    expect(reachable).toHaveBeenCalledTimes(1);
    stop();
    vi.unstubAllGlobals();
  });
});
