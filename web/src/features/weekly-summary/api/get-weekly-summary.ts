import { queryOptions, useQuery } from '@tanstack/react-query';
import { ApiError, client, unwrap } from '@/lib/api-client';

export const getWeeklySummary = (id: string, signal?: AbortSignal) =>
  unwrap(client.GET('/api/weekly-summary/{id}', { params: { path: { id } }, signal }));

/** docs/product.md §7: this one call retries up to 3 times, except on 403 (and on 404, which cannot heal). */
export function retryWeeklySummary(failureCount: number, error: Error): boolean {
  if (error instanceof ApiError && (error.status === 403 || error.status === 404)) return false;
  return failureCount < 3;
}

export const weeklySummaryQueryOptions = (id: string, userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['weekly-summary', id, userId ?? null],
    queryFn: ({ signal }) => getWeeklySummary(id, signal),
    enabled: Boolean(userId),
    retry: retryWeeklySummary,
  });

export function useWeeklySummary(id: string, userId: string | null | undefined) {
  return useQuery(weeklySummaryQueryOptions(id, userId));
}
