import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { ApiKeyBody } from '@/lib/api/types';

export const getApiKey = (signal?: AbortSignal) => api.get<ApiKeyBody>('/api/key', signal);

export const apiKeyQueryOptions = (userId: string | null | undefined) =>
  queryOptions({ queryKey: ['api-key', userId ?? null], queryFn: ({ signal }) => getApiKey(signal), enabled: Boolean(userId) });

export function useApiKey(userId: string | null | undefined) {
  return useQuery(apiKeyQueryOptions(userId));
}
