import { QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter } from 'react-router';
import { Toaster } from '@/components/ui/toaster';
import { createQueryClient } from '@/lib/react-query';

/**
 * Renders with the app's query settings, a router and the toaster; into `container` when given
 * (a `#root`, for code that looks for the app's root), else into a new div.
 */
export function renderWithProviders(ui: ReactElement, { route = '/', container }: { route?: string; container?: HTMLElement } = {}) {
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
      { container },
    ),
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
