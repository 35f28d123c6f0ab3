import { QueryClient } from '@tanstack/react-query';

// Spec 7: no retries, no refetch on focus or interval, data never stale. Lists change only
// through our own mutations, which invalidate the matching query.
export function createQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: false,
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
        refetchInterval: false,
        staleTime: Infinity,
      },
      mutations: { retry: false },
    },
  });
}
