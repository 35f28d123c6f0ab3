import { queryOptions, useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';

export const getTrends = (signal?: AbortSignal) => unwrap(client.GET('/api/trends', { signal }));

export const trendsQueryOptions = (userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['trends', userId ?? null],
    queryFn: ({ signal }) => getTrends(signal),
    enabled: Boolean(userId),
  });

export function useTrends(userId: string | null | undefined) {
  return useQuery(trendsQueryOptions(userId));
}
