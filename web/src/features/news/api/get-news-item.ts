// GET /api/news/{id}: one item for the in-app reader when it is not loaded already (a deep link).
import { queryOptions, useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';

export const getNewsItem = (id: string, signal?: AbortSignal) =>
  unwrap(client.GET('/api/news/{news_id}', { params: { path: { news_id: id } }, signal }));

export const newsItemQueryOptions = (id: string, userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['news-item', id, userId ?? null],
    queryFn: ({ signal }) => getNewsItem(id, signal),
  });

export function useNewsItem(id: string, userId: string | null | undefined, enabled: boolean) {
  return useQuery({ ...newsItemQueryOptions(id, userId), enabled });
}
