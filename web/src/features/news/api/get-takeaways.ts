// GET /api/news/{id}/takeaways: the server's key takeaways for a subscriber, ranked by their resume.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';

export const getTakeaways = (id: string, signal?: AbortSignal) =>
  unwrap(client.GET('/api/news/{news_id}/takeaways', { params: { path: { news_id: id } }, signal }));

export const takeawaysQueryOptions = (id: string, userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['takeaways', id, userId ?? null],
    queryFn: ({ signal }) => getTakeaways(id, signal),
    enabled: Boolean(userId),
  });

export function useTakeaways(id: string | null, userId: string | null | undefined) {
  return useQuery({ ...takeawaysQueryOptions(id ?? '', userId), enabled: Boolean(id && userId) });
}
