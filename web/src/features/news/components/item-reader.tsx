// The in-app reader (docs/product.md §4's "full-screen card of feed, drops and shared"): the item's
// full text, source, date, the actions of the view it was opened from, and the source link.
// It lives in the address (`/app?view=feed&item=ID`), so it can be linked to and the
// browser's back button closes it; Esc closes it too.
import * as Dialog from '@radix-ui/react-dialog';
import { ExternalLink, FileQuestion, Lock, X } from 'lucide-react';
import { useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { appViewPath, paths, searchPath, type AppView } from '@/config/paths';
import { loadedItems, useNews } from '@/features/news/api/get-news';
import { focusCard } from '@/features/news/card-focus';
import { useNewsItem } from '@/features/news/api/get-news-item';
import { ItemActions } from '@/features/news/components/item-actions';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import { itemSource, SourceBadge } from '@/features/news/components/source-badge';
import { TakeawaysDialog } from '@/features/news/components/takeaways-dialog';
import { useSearch } from '@/features/news/api/search';
import { ApiError } from '@/lib/api-client';
import type { NewsItem } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';
import { formatDate, relativeTime } from '@/lib/relative-time';

/** The item's text as paragraphs: `content` (blank-line separated), else the summary. */
export function paragraphs(item: Pick<NewsItem, 'content' | 'summary'>): string[] {
  const text = item.content?.trim() ? item.content : item.summary;
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean);
}

function Body({ item, view }: { item: NewsItem; view: AppView }) {
  const { isSubscriber } = useAuth();
  const [takeaways, setTakeaways] = useState<NewsItem | null>(null);
  const source = itemSource(item);
  return (
    <article className="mx-auto w-full max-w-2xl px-5 pb-16 pt-6 sm:px-8" data-testid="reader">
      <div className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
        <SourceBadge source={source} size="lg" />
        <div className="flex flex-col">
          <span className="font-semibold text-slate-800 dark:text-slate-200">{source}</span>
          <time dateTime={item.published_date} title={relativeTime(item.published_date)}>
            {formatDate(item.published_date)}
          </time>
        </div>
      </div>
      <Dialog.Title className="mt-5 text-2xl font-bold leading-tight tracking-tight sm:text-3xl">{item.title}</Dialog.Title>
      <Dialog.Description className="sr-only">{item.summary}</Dialog.Description>
      <div className="mt-4 border-y border-slate-200 py-1 dark:border-slate-800">
        <ItemActions item={item} view={view} onTakeaways={view === 'feed' && isSubscriber ? setTakeaways : undefined} />
      </div>
      <div className="mt-6 flex flex-col gap-4 text-[1.0625rem] leading-relaxed text-slate-800 sm:text-lg dark:text-slate-200" data-testid="reader-content">
        {paragraphs(item).map((p, i) => (
          <p key={i}>{p}</p>
        ))}
      </div>
      {item.url && view !== 'trash' && (
        <a href={item.url} target="_blank" rel="noopener noreferrer" className={buttonClass('outline', 'md', 'mt-8')}>
          Read at {source} <ExternalLink aria-hidden="true" className="h-4 w-4" />
          <span className="sr-only">(opens in a new tab)</span>
        </a>
      )}
      <TakeawaysDialog item={takeaways} onClose={() => setTakeaways(null)} />
    </article>
  );
}

/**
 * Finds the item among what the app has loaded (over search results, among them too: a free
 * reader's result may lie beyond the feed's allowance), else asks the server for it.
 */
function useReaderItem(id: string, q: string) {
  const { user } = useAuth();
  const news = useNews();
  const search = useSearch(q);
  const { serverItems } = useItemSets();
  const hits = search.data?.pages.flatMap((page) => page.items) ?? [];
  const found = [...hits, ...loadedItems(news.data?.pages), ...serverItems.favorites, ...serverItems.read, ...serverItems.hidden].find((item) => item.id === id);
  // Once shown, the item stays even when a mark takes it out of the loaded lists.
  const [kept, setKept] = useState<NewsItem | null>(null);
  if (found && found !== kept) setKept(found);
  const current = found ?? (kept?.id === id ? kept : null);
  const waiting = news.isPending || search.isLoading;
  const fetched = useNewsItem(id, user?.id, !current && !waiting);
  return { item: current ?? fetched.data ?? null, loading: !current && (waiting || fetched.isPending), error: current ? null : fetched.error };
}

/** `q`: the query of the search results it was opened over (empty for the other views). */
export function ItemReader({ id, view, q = '' }: { id: string; view: AppView; q?: string }) {
  const navigate = useNavigate();
  const location = useLocation();
  const { item, loading, error } = useReaderItem(id, view === 'search' ? q : '');
  const fromList = Boolean((location.state as { reader?: boolean } | null)?.reader);
  const close = () => {
    if (fromList) navigate(-1);
    else navigate(view === 'search' ? searchPath(q) : appViewPath(view), { replace: true });
  };
  const status = error instanceof ApiError ? error.status : null;

  return (
    <Dialog.Root open onOpenChange={(open) => !open && close()}>
      <Dialog.Portal>
        <Dialog.Content
          aria-describedby={undefined}
          // Back to the card it was opened from, or the one that took its place if a mark
          // here took it out of its list.
          onCloseAutoFocus={(event) => {
            if (focusCard(id)) event.preventDefault();
          }}
          className="fixed inset-0 z-50 overflow-y-auto bg-white text-slate-900 outline-none dark:bg-slate-950 dark:text-slate-100"
        >
          <div className="sticky top-0 z-10 flex h-14 items-center gap-2 border-b border-slate-200 bg-white/95 px-3 backdrop-blur dark:border-slate-800 dark:bg-slate-950/95">
            <Dialog.Close className={buttonClass('ghost', 'sm')} aria-label="Close reader">
              <X aria-hidden="true" className="h-5 w-5" /> Close
            </Dialog.Close>
          </div>
          {item ? (
            <Body item={item} view={view} />
          ) : loading ? (
            <>
              <Dialog.Title className="sr-only">Loading story</Dialog.Title>
              <Spinner label="Loading story" />
            </>
          ) : status === 403 ? (
            <>
              <EmptyState
                icon={Lock}
                title={<Dialog.Title asChild><span>Premium Content</span></Dialog.Title>}
                action={
                  <Link to={paths.subscribe} className={buttonClass('primary')}>
                    Subscribe Now
                  </Link>
                }
              >
                This story is beyond the free allowance. Subscribe now to unlock unlimited access to all AI news.
              </EmptyState>
            </>
          ) : (
            <>
              <EmptyState
                icon={FileQuestion}
                title={
                  <Dialog.Title asChild>
                    <span>{status === 404 ? 'Story not found' : 'Could not load the story'}</span>
                  </Dialog.Title>
                }
                action={
                  <Dialog.Close className={buttonClass('outline')}>Back to {view === 'feed' ? 'Feed' : 'the list'}</Dialog.Close>
                }
              >
                {status === 404 ? 'It may have been removed.' : (error?.message ?? 'Please try again.')}
              </EmptyState>
            </>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
