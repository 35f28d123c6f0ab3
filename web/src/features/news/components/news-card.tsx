import { Link } from 'react-router';
import type { ReactNode } from 'react';
import { READER_STATE, readerPath, type AppView } from '@/config/paths';
import { ItemActions } from '@/features/news/components/item-actions';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import { SourceBadge } from '@/features/news/components/source-badge';
import { itemSource } from '@/features/news/source';
import { useDensity } from '@/features/news/density';
import { storySources } from '@/features/news/story';
import { Highlighted } from '@/features/news/components/highlighted';
import type { Highlights, NewsItem } from '@/lib/api/types';
import { formatDate, relativeTime } from '@/lib/relative-time';

/** A list of cards: every view of the app but Drops, which shows one story at a time. */
export type CardView = Exclude<AppView, 'drops'>;

/**
 * One item in a list. The whole card opens the in-app reader (the title is the link, and its
 * hit area covers the card); the actions sit above that area. Read items are dimmed. A search
 * result passes its `highlights` (the matched words in title, summary and a passage of the
 * text) and its `query`, kept in the reader's address.
 */
export function NewsCard({
  item,
  view,
  onTakeaways,
  extra,
  highlights,
  query,
}: {
  item: NewsItem;
  view: CardView;
  onTakeaways?: (item: NewsItem) => void;
  extra?: ReactNode;
  highlights?: Highlights;
  query?: string;
}) {
  const { sets } = useItemSets();
  const [density] = useDensity();
  const source = itemSource(item);
  const dimmed = view !== 'read' && sets.read.has(item.id);
  const compact = density === 'compact';
  if (density === 'list' && !highlights) return <NewsRow item={item} view={view} onTakeaways={onTakeaways} extra={extra} query={query} read={sets.read.has(item.id)} dimmed={dimmed} />;
  return (
    <article
      className={`group relative rounded-xl border border-slate-200 bg-white shadow-sm transition-colors hover:border-indigo-300 focus-within:border-indigo-400 dark:border-slate-800 dark:bg-slate-900 dark:hover:border-indigo-700 ${
        compact ? 'px-4 py-3' : 'p-4 sm:p-5'
      } ${dimmed ? 'opacity-60' : ''}`}
      data-testid="news-card"
      data-item-id={item.id}
      data-read={sets.read.has(item.id) || undefined}
    >
      <div className="flex items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
        <SourceBadge source={source} />
        <span className="truncate font-medium text-slate-700 dark:text-slate-300" data-slot="source">
          {source}
        </span>
        <span aria-hidden="true">·</span>
        <time dateTime={item.published_date} title={formatDate(item.published_date)} className="shrink-0" data-slot="time">
          {relativeTime(item.published_date)}
        </time>
        <StorySources item={item} />
      </div>
      <h2 className={`mt-1.5 font-semibold leading-snug tracking-tight text-slate-900 dark:text-slate-50 ${compact ? 'text-base' : 'text-[1.0625rem] sm:text-lg'}`}>
        <Link to={readerPath(view, item.id, query)} state={READER_STATE} className="outline-none after:absolute after:inset-0 after:rounded-xl focus-visible:underline" data-slot="title">
          {highlights ? <Highlighted {...highlights.title} /> : item.title}
        </Link>
      </h2>
      {!compact && (
        <p className="mt-1.5 line-clamp-3 text-[0.9375rem] leading-relaxed text-slate-700 dark:text-slate-300" data-slot="summary">
          {highlights ? <Highlighted {...highlights.summary} /> : item.summary}
        </p>
      )}
      {!compact && highlights?.snippet && (
        <p className="mt-2 line-clamp-3 border-l-2 border-slate-200 pl-3 text-sm leading-relaxed text-slate-600 dark:border-slate-700 dark:text-slate-400" data-testid="search-snippet">
          <span className="sr-only">From the {highlights.snippet.field === 'short' ? 'short text' : 'story'}: </span>
          <Highlighted text={highlights.snippet.text} ranges={highlights.snippet.ranges} />
        </p>
      )}
      {extra}
      <div className={compact ? 'mt-1' : 'mt-2'}>
        <ItemActions item={item} view={view} onTakeaways={onTakeaways} />
      </div>
    </article>
  );
}

/**
 * One line per story (the list density): source, title and age, so a screen holds 15 and more.
 * The actions show over the row's end while the pointer is on it or focus is in it (on a
 * screen without hover they stay hidden, and the reader has them); the title still opens the
 * reader. Search results keep their cards, since their highlights are the point.
 */
function NewsRow({ item, view, onTakeaways, extra, query, read, dimmed }: { item: NewsItem; view: CardView; onTakeaways?: (item: NewsItem) => void; extra?: ReactNode; query?: string; read: boolean; dimmed: boolean }) {
  const source = itemSource(item);
  const sources = storySources(item);
  return (
    <article
      className={`group relative flex h-9 items-center gap-3 rounded-lg border border-slate-200 bg-white px-3 text-sm transition-colors hover:border-indigo-300 focus-within:border-indigo-400 dark:border-slate-800 dark:bg-slate-900 dark:hover:border-indigo-700 ${dimmed ? 'opacity-60' : ''}`}
      data-testid="news-card"
      data-item-id={item.id}
      data-read={read || undefined}
    >
      <SourceBadge source={source} />
      <span className="hidden w-32 shrink-0 truncate text-xs font-medium text-slate-600 sm:block dark:text-slate-400" data-slot="source">
        {source}
      </span>
      <h2 className="min-w-0 flex-1 truncate font-medium text-slate-900 dark:text-slate-50">
        <Link to={readerPath(view, item.id, query)} state={READER_STATE} className="outline-none after:absolute after:inset-0 after:rounded-lg focus-visible:underline" data-slot="title">
          {item.title}
        </Link>
      </h2>
      {extra && <div className="hidden shrink-0 lg:block [&>p]:mt-0">{extra}</div>}
      {sources && (
        <span className="hidden shrink-0 text-xs text-slate-600 sm:inline dark:text-slate-400" data-testid="story-sources" data-slot="sources">
          {sources}
        </span>
      )}
      <time dateTime={item.published_date} title={formatDate(item.published_date)} className="shrink-0 text-xs text-slate-600 dark:text-slate-400" data-slot="time">
        {relativeTime(item.published_date)}
      </time>
      <div className="absolute inset-y-0 right-1 hidden items-center rounded-md bg-white/95 pl-2 opacity-0 group-focus-within:opacity-100 group-hover:opacity-100 [@media(hover:hover)]:flex dark:bg-slate-900/95">
        <ItemActions item={item} view={view} onTakeaways={onTakeaways} />
      </div>
    </article>
  );
}

/** "· 5 sources" on the source and date line of a story's card: written out, so it reads the same without colour. */
function StorySources({ item }: { item: NewsItem }) {
  const sources = storySources(item);
  if (!sources) return null;
  return (
    <>
      <span aria-hidden="true">·</span>
      <span className="shrink-0" data-testid="story-sources" data-slot="sources">
        {sources}
      </span>
    </>
  );
}

export function NewsCardSkeleton() {
  return (
    <div aria-hidden="true" className="animate-pulse rounded-xl border border-slate-200 p-5 dark:border-slate-800" data-testid="news-skeleton">
      <div className="h-3 w-32 rounded bg-slate-200 dark:bg-slate-800" />
      <div className="mt-3 h-5 w-3/4 rounded bg-slate-200 dark:bg-slate-800" />
      <div className="mt-3 h-3 w-full rounded bg-slate-200 dark:bg-slate-800" />
      <div className="mt-2 h-3 w-5/6 rounded bg-slate-200 dark:bg-slate-800" />
    </div>
  );
}
