import { useSearchParams } from 'react-router';
import { AppHeader } from '@/components/layouts/app-header';
import type { AppView } from '@/config/paths';
import { DropsView } from '@/features/news/components/drops-view';
import { FeedView } from '@/features/news/components/feed-view';
import { ItemSetsProvider } from '@/features/news/components/item-sets-provider';
import { FavoritesView, ReadView, SharedView, TrashView } from '@/features/news/components/set-views';

const VIEWS: AppView[] = ['feed', 'drops', 'favorites', 'read', 'trash', 'shared'];

export default function AppRoute() {
  const [params] = useSearchParams();
  const requested = params.get('view') as AppView | null;
  const view: AppView = requested && VIEWS.includes(requested) ? requested : 'feed';
  return (
    <ItemSetsProvider>
      <div className="min-h-screen">
        <AppHeader view={view} />
        <main id="main" className="mx-auto w-full max-w-3xl px-3 py-4 sm:px-4 sm:py-6">
          {view === 'feed' && <FeedView />}
          {view === 'drops' && <DropsView />}
          {view === 'favorites' && <FavoritesView />}
          {view === 'read' && <ReadView />}
          {view === 'trash' && <TrashView />}
          {view === 'shared' && <SharedView />}
        </main>
      </div>
    </ItemSetsProvider>
  );
}
