import { Suspense, useEffect } from 'react';
import { useSearchParams } from 'react-router';
import { AppShell } from '@/components/layouts/app-shell';
import { deferred } from '@/components/ui/deferred';
import { Spinner } from '@/components/ui/spinner';
import { VIEW_LABELS, type AppView } from '@/config/paths';
import { DensityToggle } from '@/features/news/components/density-toggle';
import { ListKeysHelp } from '@/features/news/components/list-keys-help';
import { MarkReadMenu } from '@/features/news/components/mark-read-menu';
import { FeedView } from '@/features/news/components/feed-view';
import { ItemSetsProvider } from '@/features/news/components/item-sets-provider';
import { useDensity } from '@/features/news/density';
import { useListKeys } from '@/features/news/use-list-keys';
import { KeyPointsCard } from '@/features/weekly-summary/components/key-points-card';
import { chunk } from '@/lib/chunk';
import { whenIdle } from '@/lib/idle';

/**
 * The reader, over the list (`?item=`). Its code (Radix's dialog among it) is not needed for
 * the first story: it is fetched once the page is idle, so that a card opens at once.
 */
const ItemReader = deferred(() => import('@/features/news/components/item-reader').then((m) => m.ItemReader));

/**
 * The views but the feed: the page opens on the feed, so their code waits until the page is idle
 * (a spinner stands in if one is opened before it arrives).
 */
const setViews = () => import('@/features/news/components/set-views');
const views = {
  drops: chunk(() => import('@/features/news/components/drops-view').then((m) => ({ default: m.DropsView }))),
  favorites: chunk(() => setViews().then((m) => ({ default: m.FavoritesView }))),
  read: chunk(() => setViews().then((m) => ({ default: m.ReadView }))),
  trash: chunk(() => setViews().then((m) => ({ default: m.TrashView }))),
  shared: chunk(() => setViews().then((m) => ({ default: m.SharedView }))),
  search: chunk(() => import('@/features/news/components/search-view').then((m) => ({ default: m.SearchView }))),
};

const VIEWS: AppView[] = ['feed', 'drops', 'favorites', 'read', 'trash', 'shared', 'search'];

/** The single-key shortcuts over a list view (Drops has its own). */
function ListKeys({ active }: { active: boolean }) {
  useListKeys(active);
  return null;
}

export default function AppRoute() {
  const [params] = useSearchParams();
  const requested = params.get('view') as AppView | null;
  const view: AppView = requested && VIEWS.includes(requested) ? requested : 'feed';
  const item = params.get('item');
  const q = (params.get('q') ?? '').trim();
  useEffect(
    () =>
      whenIdle(() => {
        void ItemReader.preload().catch(() => undefined);
        for (const { preload } of Object.values(views)) void preload().catch(() => undefined);
      }),
    [],
  );
  return (
    <ItemSetsProvider>
      <ListKeys active={view !== 'drops'} />
      <AppShell view={view}>
        {/* Drops gives the whole screen to the story; the other views are titled lists. */}
        <div className={view === 'drops' ? 'sr-only' : 'mb-4 flex min-h-8 items-center justify-between gap-3'}>
          <h1 className="min-w-0 break-words text-xl font-bold tracking-tight sm:text-2xl">
            {view === 'search' && q ? `Results for “${q}”` : VIEW_LABELS[view]}
          </h1>
          {view !== 'drops' && (
            <div className="flex items-center gap-1">
              {view === 'feed' && <MarkReadMenu />}
              {(view === 'feed' || view === 'favorites' || view === 'shared' || view === 'search') && <DensityToggle />}
              <ListKeysHelp />
            </div>
          )}
        </div>
        {view === 'feed' && (
          <>
            <FeedKeyPoints />
            <FeedView />
          </>
        )}
        <Suspense fallback={<Spinner />}>
          {view === 'drops' && <views.drops.Component />}
          {view === 'favorites' && <views.favorites.Component />}
          {view === 'read' && <views.read.Component />}
          {view === 'trash' && <views.trash.Component />}
          {view === 'shared' && <views.shared.Component />}
          {view === 'search' && <views.search.Component key={q} q={q} />}
        </Suspense>
      </AppShell>
      {item && <ItemReader key={item} id={item} view={view} q={q} />}
    </ItemSetsProvider>
  );
}

/** The week's key points atop the feed, one row in the list density like the stories under it. */
function FeedKeyPoints() {
  const [density] = useDensity();
  return <KeyPointsCard row={density === 'list'} />;
}
