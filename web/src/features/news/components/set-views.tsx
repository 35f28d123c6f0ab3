// Favs, Read and Trash: the server's lists in the server's order, with the items marked here
// and not yet on the server first; Shared as the server lists it.
import { CheckCheck, Heart, Share2, Trash2 } from 'lucide-react';
import { Link } from 'react-router';
import { Button, buttonClass } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { StateMessage } from '@/components/ui/state-message';
import { paths } from '@/config/paths';
import { loadedItems, useNews } from '@/features/news/api/get-news';
import { useShared } from '@/features/news/api/get-shared';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import { CardList } from '@/features/news/components/card-list';
import { NewsCard } from '@/features/news/components/news-card';
import type { SetKind } from '@/features/news/item-sets';
import { itemsInSet } from '@/features/news/pending-marks';
import { useAuth } from '@/lib/auth';
import { relativeTime } from '@/lib/relative-time';

const backToFeed = (
  <Link to={paths.app} className={buttonClass('outline', 'sm')}>
    Back to Feed
  </Link>
);

function useSetItems(kind: SetKind) {
  const { sets, serverItems, serverErrors, serverLoading } = useItemSets();
  const news = useNews();
  const known = [...loadedItems(news.data?.pages), ...serverItems.favorites, ...serverItems.hidden, ...serverItems.read];
  return {
    items: itemsInSet(kind, sets, serverItems[kind], known),
    error: serverErrors[kind],
    loading: serverLoading[kind],
  };
}

const reload = () => window.location.reload();

export function FavoritesView() {
  const { user } = useAuth();
  const { items, error, loading } = useSetItems('favorites');
  if (!user) return <StateMessage title="Please Sign In">Sign in to keep your favourite stories.</StateMessage>;
  if (loading) return <Spinner label="Loading favs" />;
  if (error && items.length === 0)
    return <StateMessage title="Error">{error.message || 'Failed to load favs. Please try again later.'}</StateMessage>;
  if (items.length === 0)
    return (
      <EmptyState icon={Heart} title="No Favs Yet" action={backToFeed}>
        Save a story with the heart and it waits for you here.
      </EmptyState>
    );
  return (
    <CardList label="Favs">
      {items.map((item) => (
        <NewsCard key={item.id} item={item} view="favorites" />
      ))}
    </CardList>
  );
}

function ErrorState({ title, error }: { title: string; error: Error }) {
  return (
    <StateMessage
      title={title}
      action={
        <Button variant="outline" onClick={reload}>
          Try again
        </Button>
      }
    >
      {error.message}
    </StateMessage>
  );
}

export function ReadView() {
  const { items, error, loading } = useSetItems('read');
  if (loading) return <Spinner label="Loading read items" />;
  if (error) return <ErrorState title="Error loading read items" error={error} />;
  if (items.length === 0)
    return (
      <EmptyState icon={CheckCheck} title="No read items" action={backToFeed}>
        Stories you mark as read leave the feed and are kept here.
      </EmptyState>
    );
  return (
    <CardList label="Read">
      {items.map((item) => (
        <NewsCard key={item.id} item={item} view="read" />
      ))}
    </CardList>
  );
}

export function TrashView() {
  const { items, error, loading } = useSetItems('hidden');
  if (loading) return <Spinner label="Loading hidden items" />;
  if (error) return <ErrorState title="Error loading hidden items" error={error} />;
  if (items.length === 0)
    return (
      <EmptyState icon={Trash2} title="Trash is empty" action={backToFeed}>
        Hidden stories land here, and Restore puts them back in the feed.
      </EmptyState>
    );
  return (
    <CardList label="Trash">
      {items.map((item) => (
        <NewsCard key={item.id} item={item} view="trash" />
      ))}
    </CardList>
  );
}

export function SharedView() {
  const { user } = useAuth();
  const shared = useShared(user?.id);
  if (shared.isPending) return <Spinner label="Loading shared items" />;
  if (shared.isError) return <ErrorState title="Error loading shared items" error={shared.error} />;
  if (shared.data.length === 0)
    return (
      <EmptyState icon={Share2} title="No shared items" action={backToFeed}>
        Stories you share on LinkedIn are listed here.
      </EmptyState>
    );
  return (
    <CardList label="Shared">
      {shared.data.map((item) => (
        <NewsCard
          key={`${item.id}-${item.sharedAt}`}
          item={item}
          view="shared"
          extra={
            <p className="mt-2 text-xs text-slate-500 dark:text-slate-400">
              Shared on {item.platform === 'linkedin' ? 'LinkedIn' : item.platform} {relativeTime(item.sharedAt)}
            </p>
          }
        />
      ))}
    </CardList>
  );
}
