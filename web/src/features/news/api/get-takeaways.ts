// GET /api/news/{id}/takeaways: the server's key takeaways for a subscriber, ranked by their resume.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { Takeaways } from '@/lib/api/types';

export const getTakeaways = (id: string, signal?: AbortSignal) => api.get<Takeaways>(`/api/news/${encodeURIComponent(id)}/takeaways`, signal);

export const takeawaysQueryOptions = (id: string, userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['takeaways', id, userId ?? null],
    queryFn: ({ signal }) => getTakeaways(id, signal),
    enabled: Boolean(userId),
  });

export function useTakeaways(id: string | null, userId: string | null | undefined) {
  return useQuery({ ...takeawaysQueryOptions(id ?? '', userId), enabled: Boolean(id && userId) });
}
