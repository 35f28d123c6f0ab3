import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, client, unwrap } from '@/lib/api-client';

export const getInsights = (signal?: AbortSignal) => unwrap(client.GET('/api/insights', { signal }));

/** A 403 (not a subscriber) cannot heal by retrying. */
function retryInsights(failureCount: number, error: Error): boolean {
  if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return false;
  return failureCount < 3;
}

export const insightsQueryOptions = (userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['insights', userId ?? null],
    queryFn: ({ signal }) => getInsights(signal),
    enabled: Boolean(userId),
    retry: retryInsights,
  });

export function useInsights(userId: string | null | undefined) {
  return useQuery(insightsQueryOptions(userId));
}
