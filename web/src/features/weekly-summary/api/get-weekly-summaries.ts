import { queryOptions, useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';

export const getWeeklySummaries = (signal?: AbortSignal) => unwrap(client.GET('/api/weekly-summary/archive', { signal }));

export const weeklySummariesQueryOptions = (userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['weekly-summaries', userId ?? null],
    queryFn: ({ signal }) => getWeeklySummaries(signal),
    enabled: Boolean(userId),
  });

export function useWeeklySummaries(userId: string | null | undefined) {
  return useQuery(weeklySummariesQueryOptions(userId));
}
