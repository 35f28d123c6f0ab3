// The actions on an item, shown where docs/product.md §4 says: favourite not in the read and trash
// views; mark-read in the feed, drops, read and shared views (and their full-screen card);
// hide in the feed and Favs; the More link and Share not in Trash; takeaways in the feed for
// subscribers; Restore in Trash. Search results (docs/product.md §10) act as feed cards.
import { Check, ExternalLink, EyeOff, Heart, Lightbulb, RotateCcw, Share2 } from 'lucide-react';
import type { ReactNode } from 'react';
import type { AppView } from '@/config/paths';
import { linkedInShareUrl, useShareItem } from '@/features/news/api/share-item';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import type { NewsItem } from '@/lib/api/types';


const RESTORED = {
  title: 'Item restored',
  description: 'The item has been removed from trash and is visible in the feed again',
};
const RESTORE_FAILED = { title: 'Error restoring item', description: 'Could not restore the item', variant: 'destructive' as const };

/**
 * An icon button that also shows a short word from `sm` up. The word must be a word of the
 * accessible name (WCAG 2.5.3), so that a user who says or sees it finds the button; the
 * favourite toggle is named by its word alone and says its state with `pressed`, its
 * tooltip (`hint`) what a click does.
 */
function Action({ label, shortLabel, hint, pressed, action, onClick, children }: { label: string; shortLabel: string; hint?: string; pressed?: boolean; action: string; onClick: () => void; children: ReactNode }) {
  return (
    <button
      type="button"
      data-action={action}
      aria-label={label}
      title={hint ?? label}
      aria-pressed={pressed}
      onClick={onClick}
      className={`relative z-10 inline-flex h-9 min-w-9 items-center justify-center gap-1.5 rounded-md px-2 text-sm font-medium hover:bg-slate-100 dark:hover:bg-slate-800 ${
        pressed ? 'text-indigo-700 dark:text-indigo-300' : 'text-slate-600 dark:text-slate-400'
      }`}
    >
      {children}
      <span aria-hidden="true" className="hidden sm:inline">
        {shortLabel}
      </span>
    </button>
  );
}

export function ItemActions({ item, view, onTakeaways }: { item: NewsItem; view: AppView; onTakeaways?: (item: NewsItem) => void }) {
  const { sets, change } = useItemSets();
  const share = useShareItem();
  const favorite = sets.favorites.has(item.id);
  const read = sets.read.has(item.id);
  const inTrash = view === 'trash';

  const onShare = () => {
    window.open(linkedInShareUrl(item), '_blank', 'noopener,noreferrer');
    share.mutate(item.id);
  };

  return (
    <div className="flex flex-wrap items-center gap-0.5" aria-label="Item actions" role="group">
      {view !== 'read' && !inTrash && (
        <Action
          action="favorite"
          label="Favorite"
          shortLabel="Favorite"
          hint={favorite ? 'Remove from favorites' : 'Add to favorites'}
          pressed={favorite}
          onClick={() => change('favorites', item.id, !favorite)}
        >
          <Heart aria-hidden="true" className={`h-4 w-4 ${favorite ? 'fill-current' : ''}`} />
        </Action>
      )}
      {(view === 'feed' || view === 'search' || view === 'drops' || view === 'read' || view === 'shared') && (
        <Action action="read" label={read ? 'Mark as unread' : 'Mark as read'} shortLabel={read ? 'Unread' : 'Read'} pressed={read} onClick={() => change('read', item.id, !read)}>
          <Check aria-hidden="true" className="h-4 w-4" />
        </Action>
      )}
      {(view === 'feed' || view === 'search' || view === 'favorites') && (
        <Action action="hide" label="Hide" shortLabel="Hide" onClick={() => change('hidden', item.id, true)}>
          <EyeOff aria-hidden="true" className="h-4 w-4" />
        </Action>
      )}
      {!inTrash && (
        <Action action="share" label="Share on LinkedIn" shortLabel="Share" onClick={onShare}>
          <Share2 aria-hidden="true" className="h-4 w-4" />
        </Action>
      )}
      {view === 'feed' && onTakeaways && (
        <Action action="takeaways" label="Key takeaways" shortLabel="Takeaways" onClick={() => onTakeaways(item)}>
          <Lightbulb aria-hidden="true" className="h-4 w-4" />
        </Action>
      )}
      {inTrash && (
        <button
          type="button"
          data-action="restore"
          onClick={() => change('hidden', item.id, false, { success: RESTORED, failure: RESTORE_FAILED })}
          className="relative z-10 inline-flex h-9 items-center gap-1.5 rounded-md border border-slate-300 px-3 text-sm font-medium hover:bg-slate-100 dark:border-slate-700 dark:hover:bg-slate-800"
        >
          <RotateCcw aria-hidden="true" className="h-4 w-4" />
          Restore
        </button>
      )}
      {!inTrash && item.url && (
        <a
          data-action="open"
          href={item.url}
          target="_blank"
          rel="noopener noreferrer"
          className="relative z-10 ml-auto inline-flex h-9 items-center gap-1 rounded-md px-2 text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
        >
          More <ExternalLink aria-hidden="true" className="h-3.5 w-3.5" />
          <span className="sr-only" data-slot="more-label">
            about {item.title} (opens in a new tab)
          </span>
        </a>
      )}
    </div>
  );
}
