import { useState } from 'react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { StateMessage } from '@/components/ui/state-message';
import { paths } from '@/config/paths';
import { useNews } from '@/features/news/api/get-news';
import { feedFooter, feedVisibleCount } from '@/features/news/feed-count';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import { NewsCard, NewsCardSkeleton } from '@/features/news/components/news-card';
import { TakeawaysDialog } from '@/features/news/components/takeaways-dialog';
import { visibleInFeed } from '@/features/news/item-sets';
import type { NewsItem } from '@/features/news/types';
import { useAuth } from '@/lib/auth';

export function FeedView() {
  const { isSubscriber } = useAuth();
  const { sets } = useItemSets();
  const news = useNews();
  const [clicks, setClicks] = useState(0);
  const [takeawaysFor, setTakeawaysFor] = useState<NewsItem | null>(null);

  if (news.isPending) {
    return (
      <div className="flex flex-col gap-4" aria-busy="true" aria-label="Loading news">
        {Array.from({ length: 5 }, (_, i) => (
          <NewsCardSkeleton key={i} />
        ))}
      </div>
    );
  }
  if (news.isError) {
    return (
      <StateMessage title="Error loading news">
        <p>{news.error.message}</p>
      </StateMessage>
    );
  }

  const pages = news.data.pages;
  const all = visibleInFeed(pages.flatMap((p) => p.items), sets);
  const count = feedVisibleCount(isSubscriber, clicks);
  const shown = all.slice(0, count);
  const footer = feedFooter(isSubscriber, shown.length, all.length, pages[pages.length - 1]?.hasMore ?? false);

  const readMore = () => {
    const next = clicks + 1;
    setClicks(next);
    if (all.length < feedVisibleCount(true, next) && news.hasNextPage) void news.fetchNextPage();
  };

  if (shown.length === 0) return <StateMessage title="No news items available" />;

  return (
    <section aria-label="Feed" className="flex flex-col gap-4">
      {shown.map((item) => (
        <NewsCard key={item.id} item={item} view="feed" onTakeaways={isSubscriber ? setTakeawaysFor : undefined} />
      ))}
      {footer === 'read-more' && (
        <button type="button" className={buttonClass('outline', 'lg', 'self-center')} onClick={readMore} disabled={news.isFetchingNextPage}>
          {news.isFetchingNextPage ? 'Loading…' : 'Read More'}
        </button>
      )}
      {footer === 'subscribe' && (
        <Link to={paths.subscribe} className={buttonClass('primary', 'lg', 'self-center')}>
          Subscribe Now
        </Link>
      )}
      <TakeawaysDialog item={takeawaysFor} onClose={() => setTakeawaysFor(null)} />
    </section>
  );
}
