// GET /api/search?q=&cursor=: the server's results, best first, with highlight ranges. As
// with the feed, the server decides how many a page holds and whether the reader may read
// on (`nextCursor`) or has reached their allowance (`hasMore` without a cursor).
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import type { SearchPage } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';
import { useFollowSubscription } from '@/lib/follow-subscription';

export function getSearch(q: string, cursor: string | null, signal?: AbortSignal): Promise<SearchPage> {
  return unwrap(client.GET('/api/search', { params: { query: { q, cursor } }, signal }));
}

export const searchQueryOptions = (q: string, userId: string | undefined) =>
  infiniteQueryOptions({
    queryKey: ['search', userId, q],
    queryFn: ({ pageParam, signal }) => getSearch(q, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled: q.trim() !== '',
  });

export function useSearch(q: string) {
  const { user } = useAuth();
  const search = useInfiniteQuery(searchQueryOptions(q, user?.id));
  useFollowSubscription(search.data?.pages.at(-1));
  return search;
}
