import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export const getApiKey = (signal?: AbortSignal) => api.get<{ apiKey: string }>('/api/key', signal);

export const apiKeyQueryOptions = (userId: string | null | undefined) =>
  queryOptions({ queryKey: ['api-key', userId ?? null], queryFn: ({ signal }) => getApiKey(signal), enabled: Boolean(userId) });

export function useApiKey(userId: string | null | undefined) {
  return useQuery(apiKeyQueryOptions(userId));
}
