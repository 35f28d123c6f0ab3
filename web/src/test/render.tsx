import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router';
import { Toaster } from '@/components/ui/toaster';
import { createQueryClient } from '@/lib/react-query';

/** Renders with the app's query settings, a router and the toaster. */
export function renderWithProviders(ui: ReactElement, { route = '/' }: { route?: string } = {}) {
  const queryClient = createQueryClient();
  return {
    queryClient,
    ...render(
      <QueryClientProvider client={queryClient}>
        <MemoryRouter initialEntries={[route]}>
          {ui}
          <Toaster />
        </MemoryRouter>
      </QueryClientProvider>,
    ),
  };
}

export interface FakeRoute {
  method?: string;
  path: string | RegExp;
  status?: number;
  /** The answer, or a function giving it at the time of the call (a server whose state changes). */
  body?: unknown;
}

/** A fetch stand-in answering from a list of routes; unmatched requests get a 404. */
export function fakeFetch(routes: FakeRoute[]) {
  return async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input.toString();
    const method = init?.method ?? 'GET';
    const route = routes.find(
      (r) => (r.method ?? 'GET') === method && (typeof r.path === 'string' ? r.path === url : r.path.test(url)),
    );
    if (!route) return new Response('{"error":"not_found"}', { status: 404 });
    const body = typeof route.body === 'function' ? (route.body as () => unknown)() : route.body;
    return new Response(JSON.stringify(body ?? {}), { status: route.status ?? 200 });
  };
}

export function newsItem(n: number, extra: Record<string, unknown> = {}) {
  return {
    id: `item-${n}`,
    title: `Story ${n}`,
    summary: `Summary ${n}`,
    short: `Short ${n}`,
    content: `Content ${n}`,
    url: `https://www.example${n}.com/a`,
    published_date: new Date(Date.UTC(2026, 0, 1) - n * 3_600_000).toISOString(),
    source: `Example${n}`,
    ...extra,
  };
}
