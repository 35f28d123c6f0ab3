import { Newspaper } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { StateMessage } from '@/components/ui/state-message';
import { paths } from '@/config/paths';
import { feedEnd, loadedItems, useNews } from '@/features/news/api/get-news';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import { CardList } from '@/features/news/components/card-list';
import { ListEnd } from '@/features/news/components/list-end';
import { NewsCard, NewsCardSkeleton } from '@/features/news/components/news-card';
import { keepOpened, visibleInFeed } from '@/features/news/item-sets';
import { KeepFirstPaint } from '@/features/news/first-paint/keep-first-paint';
import type { NewsItem } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';
import { deferred } from '@/components/ui/deferred';

/** Opens on a card's Key takeaways; its code arrives after the first story (see `deferred`). */
const TakeawaysDialog = deferred(() => import('@/features/news/components/takeaways-dialog').then((m) => m.TakeawaysDialog));

/** docs/product.md §2: the feed's skeleton shows this many placeholder cards. */
export const FEED_SKELETON_CARDS = 5;

const sameIds = (a: readonly NewsItem[], b: readonly NewsItem[]) => a.length === b.length && a.every((item, i) => item.id === b[i].id);

/**
 * The feed: every item of every page the server gave, minus the ones marked hidden or read
 * here since (the server leaves them out of its next answer, which the item-sets provider
 * asks for). Read More while the server hands a cursor; Subscribe Now when the reader has
 * reached their allowance.
 */
export function FeedView() {
  const { isSubscriber } = useAuth();
  const { sets, readOnOpen } = useItemSets();
  const news = useNews();
  const [takeawaysFor, setTakeawaysFor] = useState<NewsItem | null>(null);
  // What the list showed last: stories read by opening stay in it across reads in the background
  // (kept with React's "adjust state on new input" pattern, so no paint shows them gone).
  const [before, setBefore] = useState<NewsItem[]>([]);
  const shown = news.data ? keepOpened(before, visibleInFeed(loadedItems(news.data.pages), sets, readOnOpen), readOnOpen, sets) : [];
  if (news.data && !sameIds(shown, before)) setBefore(shown);
  // The feed's card, for its list and for the next visit's first paint alike.
  const card = (item: NewsItem) => <NewsCard key={item.id} item={item} view="feed" onTakeaways={isSubscriber ? setTakeawaysFor : undefined} />;

  if (news.isPending) {
    return (
      <div className="flex flex-col gap-3" aria-busy="true" aria-label="Loading news">
        {Array.from({ length: FEED_SKELETON_CARDS }, (_, i) => (
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

  const end = feedEnd(news.data.pages);

  if (shown.length === 0 && end !== 'more') {
    return (
      <EmptyState
        icon={Newspaper}
        title="No news items available"
        action={
          end === 'subscribe' && (
            <Link to={paths.subscribe} className={buttonClass('primary')}>
              Subscribe Now
            </Link>
          )
        }
      >
        {end === 'subscribe' ? 'You have read every story of your free allowance.' : 'You are all caught up. New stories arrive through the day.'}
      </EmptyState>
    );
  }

  return (
    <CardList label="Feed">
      {shown.map(card)}
      <ListEnd end={end} loading={news.isFetchingNextPage} onMore={() => void news.fetchNextPage()} />
      <TakeawaysDialog item={takeawaysFor} onClose={() => setTakeawaysFor(null)} />
      {shown.length > 0 && <KeepFirstPaint card={card} />}
    </CardList>
  );
}
