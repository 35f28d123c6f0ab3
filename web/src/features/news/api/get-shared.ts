import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { SharedItem } from '@/lib/api/types';

export const getShared = (signal?: AbortSignal) => api.get<SharedItem[]>('/api/shared', signal);

export const sharedQueryOptions = (userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['shared', userId ?? null],
    queryFn: ({ signal }) => getShared(signal),
    enabled: Boolean(userId),
  });

export function useShared(userId: string | null | undefined) {
  return useQuery(sharedQueryOptions(userId));
}
