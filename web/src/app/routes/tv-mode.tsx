import { useCallback } from 'react';
import { Spinner } from '@/components/ui/spinner';
import { StateMessage } from '@/components/ui/state-message';
import { paths } from '@/config/paths';
import { feedEnd, loadedItems, useNews } from '@/features/news/api/get-news';
import { itemSource } from '@/features/news/source';
import { storySources } from '@/features/news/story';
import { TvSlideshow } from '@/features/tv-mode/components/tv-slideshow';

/** TV mode shows what the server gives the reader: a free reader's allowance, or every story to a subscriber. */
export default function TvModeRoute() {
  const news = useNews();
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = news;
  const onNearEnd = useCallback(() => {
    if (hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  if (news.isPending) return <Spinner className="min-h-screen" label="Loading TV mode" />;
  if (news.isError) return <StateMessage title="Error loading news">{news.error.message}</StateMessage>;
  const slides = loadedItems(news.data.pages).map((item) => ({
    id: item.id,
    title: item.title,
    text: item.short || item.summary,
    source: itemSource(item),
    sources: storySources(item),
  }));
  return (
    <TvSlideshow
      slides={slides}
      total={Math.max(news.data.pages[0]?.total ?? 0, slides.length)}
      allLoaded={feedEnd(news.data.pages) !== 'more'}
      onNearEnd={onNearEnd}
      exitTo={paths.landing}
    />
  );
}
