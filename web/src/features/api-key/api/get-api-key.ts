import { queryOptions, useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';

export const getApiKey = (signal?: AbortSignal) => unwrap(client.GET('/api/key', { signal }));

export const apiKeyQueryOptions = (userId: string | null | undefined) =>
  queryOptions({ queryKey: ['api-key', userId ?? null], queryFn: ({ signal }) => getApiKey(signal), enabled: Boolean(userId) });

export function useApiKey(userId: string | null | undefined) {
  return useQuery(apiKeyQueryOptions(userId));
}
