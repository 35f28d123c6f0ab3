// The in-app reader (docs/product.md §4's "full-screen card of feed, drops and shared"): the item's
// full text, source, date, the actions of the view it was opened from, and the source link.
// It lives in the address (`/app?view=feed&item=ID`), so it can be linked to and the
// browser's back button closes it; Esc closes it too.
import * as Dialog from '@radix-ui/react-dialog';
import { ChevronLeft, ChevronRight, ExternalLink, FileQuestion, Lock, X } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { appViewPath, paths, READER_STATE, readerPath, searchPath, type AppView } from '@/config/paths';
import { loadedItems, useNews } from '@/features/news/api/get-news';
import { focusCard, neighbours } from '@/features/news/card-focus';
import { useNewsItem } from '@/features/news/api/get-news-item';
import { ItemActions } from '@/features/news/components/item-actions';
import { OtherSources } from '@/features/news/components/other-sources';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import { SourceBadge } from '@/features/news/components/source-badge';
import { itemSource } from '@/features/news/source';
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

/** Minutes a reader needs for `words` words, at 230 a minute, at least one. */
export function readingMinutes(words: number): number {
  return Math.max(1, Math.round(words / 230));
}

function Body({ item, view, q }: { item: NewsItem; view: AppView; q: string }) {
  const { isSubscriber } = useAuth();
  const [takeaways, setTakeaways] = useState<NewsItem | null>(null);
  const source = itemSource(item);
  const text = paragraphs(item);
  const minutes = readingMinutes(text.join(' ').split(/\s+/).filter(Boolean).length);
  return (
    <article className="mx-auto w-full max-w-2xl px-5 pb-16 pt-6 sm:px-8" data-testid="reader">
      <div className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
        <SourceBadge source={source} size="lg" />
        <div className="flex flex-col">
          <span className="font-semibold text-slate-800 dark:text-slate-200">{source}</span>
          <span>
            <time dateTime={item.published_date} title={relativeTime(item.published_date)}>
              {formatDate(item.published_date)}
            </time>
            {` · ${minutes} min read`}
          </span>
        </div>
      </div>
      <Dialog.Title className="mt-5 text-2xl font-bold leading-tight tracking-tight sm:text-3xl">{item.title}</Dialog.Title>
      <Dialog.Description className="sr-only">{item.summary}</Dialog.Description>
      <div className="mt-4 border-y border-slate-200 py-1 dark:border-slate-800">
        <ItemActions item={item} view={view} onTakeaways={view === 'feed' && isSubscriber ? setTakeaways : undefined} />
      </div>
      <div className="mt-6 flex flex-col gap-4 text-[1.0625rem] leading-relaxed text-slate-800 sm:text-lg dark:text-slate-200" data-testid="reader-content">
        {text.map((p, i) => (
          <p key={i}>{p}</p>
        ))}
      </div>
      {item.url && view !== 'trash' && (
        <a href={item.url} target="_blank" rel="noopener noreferrer" className={buttonClass('outline', 'md', 'mt-8')}>
          Read at {source} <ExternalLink aria-hidden="true" className="h-4 w-4" />
          <span className="sr-only">(opens in a new tab)</span>
        </a>
      )}
      {item.story && <OtherSources story={item.story} view={view} q={q} />}
      <TakeawaysDialog item={takeaways} onClose={() => setTakeaways(null)} />
    </article>
  );
}

/** The views whose lists the server draws by story: their items carry `story`. */
const BY_STORY: readonly AppView[] = ['feed', 'drops', 'search'];

/**
 * Finds the item among what the app has loaded (over search results, among them too: a free
 * reader's result may lie beyond the feed's allowance), else asks the server for it. Over the
 * feed, Drops or search, an item found only in the reader's own lists (another outlet of a
 * story, or a story read and gone from the feed) is also asked for: those lists carry no
 * story, the server's answer does.
 */
function useReaderItem(id: string, view: AppView, q: string) {
  const { user } = useAuth();
  const news = useNews();
  const search = useSearch(q);
  const { serverItems } = useItemSets();
  const hits = search.data?.pages.flatMap((page) => page.items) ?? [];
  const listed = [...hits, ...loadedItems(news.data?.pages)].find((item) => item.id === id);
  const found = listed ?? [...serverItems.favorites, ...serverItems.read, ...serverItems.hidden].find((item) => item.id === id);
  // Once shown, the item stays even when a mark takes it out of the loaded lists, and so does
  // its story when only a list without stories still holds it.
  const [kept, setKept] = useState<NewsItem | null>(null);
  const keepStory = kept?.id === id && Boolean(kept.story) && !found?.story;
  if (found && found !== kept && !keepStory) setKept(found);
  const current = keepStory ? kept : (found ?? (kept?.id === id ? kept : null));
  const waiting = news.isPending || search.isLoading;
  const withStory = !listed && BY_STORY.includes(view);
  const fetched = useNewsItem(id, user?.id, (!current || withStory) && !waiting);
  return {
    item: (withStory ? fetched.data : undefined) ?? current ?? fetched.data ?? null,
    loading: !current && (waiting || fetched.isPending),
    error: current ? null : fetched.error,
  };
}

/** `q`: the query of the search results it was opened over (empty for the other views). */
export function ItemReader({ id, view, q = '' }: { id: string; view: AppView; q?: string }) {
  const navigate = useNavigate();
  const location = useLocation();
  const { item, loading, error } = useReaderItem(id, view, view === 'search' ? q : '');
  const { open } = useItemSets();
  // Opening is reading: the server decides what it does to the item's marks.
  const shown = item?.id;
  useEffect(() => {
    if (shown) open(shown, view);
  }, [shown, view, open]);
  const fromList = Boolean((location.state as { reader?: boolean } | null)?.reader);
  const close = () => {
    if (fromList) navigate(-1);
    else navigate(view === 'search' ? searchPath(q) : appViewPath(view), { replace: true });
  };
  const status = error instanceof ApiError ? error.status : null;
  // The stories before and after this one in the list it was opened over (drawn below the
  // reader), as that list stood when it opened: a mark in the reader does not move them. The
  // reader is keyed by its item, so each story reads its own.
  const [around] = useState(() => neighbours(id));
  const [progress, setProgress] = useState(0);
  // The share of the story scrolled past, followed as the reader scrolls and as the story
  // loads or the window changes size; a story that fits is read to its end.
  const measure = useCallback((el: HTMLElement) => {
    const { scrollTop, scrollHeight, clientHeight } = el;
    setProgress(scrollHeight > clientHeight + 1 ? Math.min(1, scrollTop / (scrollHeight - clientHeight)) : 1);
  }, []);
  const scroller = useCallback(
    (el: HTMLDivElement | null) => {
      if (!el) return;
      const resized = new ResizeObserver(() => measure(el));
      const changed = new MutationObserver(() => measure(el));
      resized.observe(el);
      changed.observe(el, { childList: true, subtree: true });
      return () => {
        resized.disconnect();
        changed.disconnect();
      };
    },
    [measure],
  );
  // Stepping replaces the reader's entry, so back and Esc still return to the list.
  const step = (to: string) => navigate(readerPath(view, to, q), { replace: true, state: location.state ?? READER_STATE });

  return (
    <Dialog.Root open onOpenChange={(open) => !open && close()}>
      <Dialog.Portal>
        <Dialog.Content
          aria-describedby={undefined}
          ref={scroller}
          onScroll={(event) => measure(event.currentTarget)}
          // Back to the card it was opened from, or the one that took its place if a mark
          // here took it out of its list; from another outlet of a story, to the story's card.
          onCloseAutoFocus={(event) => {
            if (focusCard(id) || item?.story?.outlets.some((outlet) => focusCard(outlet.id))) event.preventDefault();
          }}
          className="fixed inset-0 z-50 overflow-y-auto bg-white text-slate-900 outline-none dark:bg-slate-950 dark:text-slate-100"
        >
          <div className="sticky top-0 z-10 flex h-14 items-center gap-2 border-b border-slate-200 bg-white/95 px-3 backdrop-blur dark:border-slate-800 dark:bg-slate-950/95">
            <Dialog.Close className={buttonClass('ghost', 'sm')} aria-label="Close reader">
              <X aria-hidden="true" className="h-5 w-5" /> Close
            </Dialog.Close>
            <div className="ml-auto flex items-center gap-1">
              {around.previous && (
                <button type="button" className={buttonClass('ghost', 'sm')} onClick={() => step(around.previous!)}>
                  <ChevronLeft aria-hidden="true" className="h-4 w-4" /> Previous story
                </button>
              )}
              {around.next && (
                <button type="button" className={buttonClass('ghost', 'sm')} onClick={() => step(around.next!)}>
                  Next story <ChevronRight aria-hidden="true" className="h-4 w-4" />
                </button>
              )}
            </div>
            {/* How far down the story the reader is; the scroll bar says it to assistive technology. */}
            <div
              aria-hidden="true"
              data-testid="reading-progress"
              data-progress={Math.round(progress * 100)}
              className="absolute inset-x-0 bottom-0 h-0.5 origin-left bg-indigo-500 transition-transform"
              style={{ transform: `scaleX(${progress})` }}
            />
          </div>
          {item ? (
            <Body item={item} view={view} q={q} />
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
