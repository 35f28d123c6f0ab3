// GET /api/news: the caller's feed, as the server decides it (see FeedPage in
// web/openapi.json). The app shows every item of every page loaded and nothing else; it
// never counts items or asks who is a subscriber.
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import type { FeedPage, NewsItem } from '@/lib/api/types';
import { useFollowSubscription } from '@/lib/follow-subscription';
import { takeArrivedEarlyFeed, takeEarlyFeed } from '@/lib/early-feed';

export async function getNews(cursor: string | null, signal?: AbortSignal): Promise<FeedPage> {
  if (!cursor) {
    const early = await takeEarlyFeed();
    if (early) return early;
  }
  return unwrap(client.GET('/api/news', { params: { query: { cursor } }, signal }));
}

export const newsQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: ['news'],
    queryFn: ({ pageParam, signal }) => getNews(pageParam, signal),
    initialPageParam: null as string | null,
    // The first page asked for by index.html, when it has arrived before the feed first
    // renders: the stories are drawn in that first render instead of a skeleton before them.
    initialData: () => {
      const early = takeArrivedEarlyFeed();
      return early ? { pages: [early], pageParams: [null] } : undefined;
    },
    // A refetch re-derives every page's cursor from the fresh answers, so after a mark the
    // loaded pages are read again from the first one and refilled.
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });

/** The feed, and a re-check of the subscription whenever the server's answer disagrees with what the app believes. */
export function useNews() {
  const news = useInfiniteQuery(newsQueryOptions());
  useFollowSubscription(news.data?.pages.at(-1));
  return news;
}

/** Every item of every loaded page, in the server's order. */
export const loadedItems = (pages: readonly FeedPage[] | undefined): NewsItem[] => pages?.flatMap((p) => p.items) ?? [];

/**
 * How the feed goes on: `more` when the reader can read on now (Read More, Drops and TV page
 * on), `subscribe` when the reader has reached their allowance, `end` when nothing is left.
 * Search answers go on the same way.
 */
export function feedEnd(pages: readonly Pick<FeedPage, 'nextCursor' | 'hasMore'>[] | undefined): 'more' | 'subscribe' | 'end' {
  const last = pages?.at(-1);
  if (!last) return 'end';
  if (last.nextCursor) return 'more';
  return last.hasMore ? 'subscribe' : 'end';
}
