import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { WeeklySummary } from '@/lib/api/types';

export const getWeeklySummaries = (signal?: AbortSignal) => api.get<WeeklySummary[]>('/api/weekly-summary/archive', signal);

export const weeklySummariesQueryOptions = (userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['weekly-summaries', userId ?? null],
    queryFn: ({ signal }) => getWeeklySummaries(signal),
    enabled: Boolean(userId),
  });

export function useWeeklySummaries(userId: string | null | undefined) {
  return useQuery(weeklySummariesQueryOptions(userId));
}
