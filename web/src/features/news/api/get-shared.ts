import { queryOptions, useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';

export const getShared = (signal?: AbortSignal) => unwrap(client.GET('/api/shared', { signal }));

export const sharedQueryOptions = (userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['shared', userId ?? null],
    queryFn: ({ signal }) => getShared(signal),
    enabled: Boolean(userId),
  });

export function useShared(userId: string | null | undefined) {
  return useQuery(sharedQueryOptions(userId));
}
