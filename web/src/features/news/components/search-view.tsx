// The results of a search as feed cards, the matched words marked; the server's page sizes
// and allowance only (Read More while it hands a cursor, Subscribe Now when the reader has
// reached their allowance); a designed empty state, a skeleton while searching, and the
// server's own words when the query cannot be run.
import { SearchX, TextSearch } from 'lucide-react';
import { Link } from 'react-router';
import { Button, buttonClass } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { StateMessage } from '@/components/ui/state-message';
import { paths, watchPath } from '@/config/paths';
import { feedEnd } from '@/features/news/api/get-news';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import { ListEnd } from '@/features/news/components/list-end';
import { FEED_SKELETON_CARDS } from '@/features/news/components/feed-view';
import { CardList } from '@/features/news/components/card-list';
import { NewsCard, NewsCardSkeleton } from '@/features/news/components/news-card';
import { useSearch } from '@/features/news/api/search';
import { ApiError } from '@/lib/api-client';

/** The query syntax the server understands (store/src/search/query.rs), as a one-line hint. */
export function SearchHint() {
  const code = 'whitespace-nowrap rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.8125rem] text-slate-800 dark:bg-slate-800 dark:text-slate-200';
  return (
    <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="search-hint">
      Words find stories holding all of them. Also: <code className={code}>"exact phrase"</code>,{' '}
      <code className={code}>-leave-out</code>, <code className={code}>source:theverge</code>,{' '}
      <code className={code}>after:2026-01-31</code>, <code className={code}>before:2026-12-31</code>.
    </p>
  );
}

const backToFeed = (
  <Link to={paths.app} className={buttonClass('outline', 'sm')}>
    Back to Feed
  </Link>
);

export function SearchView({ q }: { q: string }) {
  const query = q.trim();
  const { sets } = useItemSets();
  const search = useSearch(query);

  if (!query) {
    return (
      <EmptyState icon={TextSearch} title="Search every story" action={backToFeed}>
        Type in the search box at the top (press / to get there) and press Enter.
      </EmptyState>
    );
  }
  if (search.isPending) {
    return (
      <div className="flex flex-col gap-3" aria-busy="true" aria-label="Searching">
        {Array.from({ length: FEED_SKELETON_CARDS }, (_, i) => (
          <NewsCardSkeleton key={i} />
        ))}
      </div>
    );
  }
  if (search.isError) {
    const error = search.error;
    if (error instanceof ApiError && error.status === 400) {
      return (
        <StateMessage title="This search cannot be run">
          <p className="font-medium text-slate-800 dark:text-slate-200" data-testid="search-error">
            {error.detail ?? error.message}
          </p>
          <div className="mt-3">
            <SearchHint />
          </div>
        </StateMessage>
      );
    }
    return (
      <StateMessage
        title="Error searching"
        action={
          <Button variant="outline" onClick={() => void search.refetch()}>
            Try again
          </Button>
        }
      >
        {error.message}
      </StateMessage>
    );
  }

  // The server leaves hidden items out; one hidden here since is left out until it answers again.
  const hits = search.data.pages.flatMap((page) => page.items).filter((hit) => !sets.hidden.has(hit.id));
  const end = feedEnd(search.data.pages);

  if (hits.length === 0 && end !== 'more') {
    return (
      <div className="flex flex-col items-center" data-testid="search-empty">
        <EmptyState icon={SearchX} title={`No results for “${query}”`} action={backToFeed}>
          Try fewer words, another spelling or a broader term.
        </EmptyState>
        <div className="max-w-md text-center">
          <SearchHint />
        </div>
      </div>
    );
  }

  // The server counts what the reader can reach; past a free reader's allowance there is more.
  const total = search.data.pages.at(-1)?.total ?? hits.length;
  const count = end === 'subscribe' ? `${hits.length}+` : String(Math.max(total, hits.length));

  return (
    <CardList label="Search results">
      <p className="text-sm text-slate-500 dark:text-slate-400" data-testid="search-count" aria-live="polite">
        {count} {count === '1' ? 'result' : 'results'} for “{query}”
        <Link to={watchPath(query)} className="ml-3 font-medium text-indigo-600 hover:underline dark:text-indigo-400">
          Watch this search
        </Link>
      </p>
      {hits.map(({ highlights, ...item }) => (
        <NewsCard key={item.id} item={item} view="search" highlights={highlights} query={query} />
      ))}
      <ListEnd
        end={end}
        loading={search.isFetchingNextPage}
        onMore={() => void search.fetchNextPage()}
        note="Subscribers see every result."
      />
      <div className="mt-4 border-t border-slate-200 pt-4 dark:border-slate-800">
        <SearchHint />
      </div>
    </CardList>
  );
}
