import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { NewsPage } from '@/features/news/types';

export const getNews = (cursor: string | null, signal?: AbortSignal): Promise<NewsPage> =>
  api.get<NewsPage>(cursor ? `/api/news?cursor=${encodeURIComponent(cursor)}` : '/api/news', signal);

export const newsQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: ['news'],
    queryFn: ({ pageParam, signal }) => getNews(pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (last.hasMore && last.nextCursor ? last.nextCursor : undefined),
  });

export function useNews() {
  return useInfiniteQuery(newsQueryOptions());
}
