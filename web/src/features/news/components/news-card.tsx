import { Check, ExternalLink, EyeOff, Heart, Lightbulb, RotateCcw, Share2 } from 'lucide-react';
import type { ReactNode } from 'react';
import { useShareItem, linkedInShareUrl } from '@/features/news/api/share-item';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import type { NewsItem } from '@/features/news/types';
import { formatDate, relativeTime } from '@/lib/relative-time';
import { sourceName, stripCitations } from '@/lib/text';

export type CardView = 'feed' | 'favorites' | 'read' | 'trash' | 'shared';

const RESTORED = {
  title: 'Item restored',
  description: 'The item has been removed from trash and is visible in the feed again',
};
const RESTORE_FAILED = { title: 'Error restoring item', description: 'Could not restore the item', variant: 'destructive' as const };

function ActionButton({
  label,
  pressed,
  onClick,
  children,
}: {
  label: string;
  pressed?: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      aria-pressed={pressed}
      onClick={onClick}
      className={`inline-flex h-9 w-9 items-center justify-center rounded-md hover:bg-slate-100 dark:hover:bg-slate-800 ${
        pressed ? 'text-indigo-600 dark:text-indigo-400' : 'text-slate-500 dark:text-slate-400'
      }`}
    >
      {children}
    </button>
  );
}

/** Action visibility follows spec 4: favourite not in read/trash, hide in feed/favs, no More or Share in trash. */
export function NewsCard({
  item,
  view,
  onTakeaways,
  extra,
}: {
  item: NewsItem;
  view: CardView;
  onTakeaways?: (item: NewsItem) => void;
  extra?: ReactNode;
}) {
  const { sets, change } = useItemSets();
  const share = useShareItem();
  const favorite = sets.favorites.has(item.id);
  const read = sets.read.has(item.id);
  const source = item.source || sourceName(item.url) || 'Source';
  const inTrash = view === 'trash';

  const onShare = () => {
    window.open(linkedInShareUrl(item), '_blank', 'noopener,noreferrer');
    share.mutate(item.id);
  };

  return (
    <article className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5 dark:border-slate-800 dark:bg-slate-900" data-testid="news-card">
      <div className="flex flex-wrap items-center gap-x-2 text-xs text-slate-500 dark:text-slate-400">
        <time dateTime={item.published_date} title={formatDate(item.published_date)}>
          {relativeTime(item.published_date)}
        </time>
        <span aria-hidden="true">·</span>
        <span>{source}</span>
      </div>
      <h3 className="mt-1 text-base font-semibold leading-snug sm:text-lg">
        {item.url && !inTrash ? (
          <a href={item.url} target="_blank" rel="noopener noreferrer" className="hover:underline">
            {stripCitations(item.title)}
          </a>
        ) : (
          stripCitations(item.title)
        )}
      </h3>
      <p className="mt-2 text-sm leading-relaxed text-slate-700 dark:text-slate-300">{stripCitations(item.summary)}</p>
      {extra}
      <div className="mt-3 flex flex-wrap items-center gap-1" aria-label="Item actions" role="group">
        {view !== 'read' && !inTrash && (
          <ActionButton
            label={favorite ? 'Remove from favorites' : 'Add to favorites'}
            pressed={favorite}
            onClick={() => change('favorites', item.id, !favorite)}
          >
            <Heart aria-hidden="true" className={`h-4 w-4 ${favorite ? 'fill-current' : ''}`} />
          </ActionButton>
        )}
        {(view === 'feed' || view === 'read' || view === 'shared') && (
          <ActionButton label={read ? 'Mark as unread' : 'Mark as read'} pressed={read} onClick={() => change('read', item.id, !read)}>
            <Check aria-hidden="true" className="h-4 w-4" />
          </ActionButton>
        )}
        {(view === 'feed' || view === 'favorites') && (
          <ActionButton label="Hide" onClick={() => change('hidden', item.id, true)}>
            <EyeOff aria-hidden="true" className="h-4 w-4" />
          </ActionButton>
        )}
        {!inTrash && (
          <ActionButton label="Share on LinkedIn" onClick={onShare}>
            <Share2 aria-hidden="true" className="h-4 w-4" />
          </ActionButton>
        )}
        {view === 'feed' && onTakeaways && (
          <ActionButton label="Key takeaways" onClick={() => onTakeaways(item)}>
            <Lightbulb aria-hidden="true" className="h-4 w-4" />
          </ActionButton>
        )}
        {inTrash && (
          <button
            type="button"
            onClick={() => change('hidden', item.id, false, { success: RESTORED, failure: RESTORE_FAILED })}
            className="inline-flex h-9 items-center gap-1.5 rounded-md border border-slate-300 px-3 text-sm hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800"
          >
            <RotateCcw aria-hidden="true" className="h-4 w-4" />
            Restore
          </button>
        )}
        {!inTrash && item.url && (
          <a
            href={item.url}
            target="_blank"
            rel="noopener noreferrer"
            className="ml-auto inline-flex h-9 items-center gap-1 rounded-md px-2 text-sm font-medium text-indigo-600 hover:underline dark:text-indigo-400"
          >
            More <ExternalLink aria-hidden="true" className="h-3.5 w-3.5" />
            <span className="sr-only">about {stripCitations(item.title)} (opens in a new tab)</span>
          </a>
        )}
      </div>
    </article>
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
