import { Check, ExternalLink, Lock } from 'lucide-react';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type PointerEvent } from 'react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { StateMessage } from '@/components/ui/state-message';
import { paths } from '@/config/paths';
import { useNews } from '@/features/news/api/get-news';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import { canTapNext, fitFontSize, isSwipeUp, nextDrop, progressDots, STEP_LOCK_MS } from '@/features/news/drops';
import { visibleInFeed, type ItemSets } from '@/features/news/item-sets';
import type { NewsItem } from '@/features/news/types';
import { useAuth } from '@/lib/auth';
import { sourceName, stripCitations } from '@/lib/text';

function Paywall() {
  return (
    <div className="flex h-full flex-col items-center justify-center gap-4 px-6 text-center" data-testid="drops-paywall">
      <Lock aria-hidden="true" className="h-10 w-10 text-indigo-600" />
      <h2 className="text-2xl font-bold">Premium Content</h2>
      <p className="max-w-md text-slate-700 dark:text-slate-300">
        You&apos;ve reached the free limit of 5 stories. Subscribe now to unlock unlimited access to all AI news.
      </p>
      <Link to={paths.subscribe} className={buttonClass('primary', 'lg')}>
        Subscribe Now
      </Link>
      <p className="max-w-md text-sm text-slate-500 dark:text-slate-400">
        Premium members get unlimited drops, priority updates and exclusive AI insights.
      </p>
    </div>
  );
}

/** The story text grows to the largest size between 24 and 48 px that still fits its box. */
function FittedText({ text }: { text: string }) {
  const box = useRef<HTMLSpanElement>(null);
  const inner = useRef<HTMLSpanElement>(null);
  useLayoutEffect(() => {
    const fit = () => {
      const outer = box.current;
      const p = inner.current;
      if (!outer || !p) return;
      fitFontSize((size) => {
        p.style.fontSize = `${size}px`;
        return p.scrollHeight <= outer.clientHeight && p.scrollWidth <= outer.clientWidth;
      });
      // fitFontSize leaves the last size tried in place, which is the answer.
    };
    fit();
    window.addEventListener('resize', fit);
    return () => window.removeEventListener('resize', fit);
  }, [text]);
  return (
    <span ref={box} className="block min-h-0 w-full flex-1 overflow-hidden">
      <span ref={inner} className="block font-semibold leading-tight" style={{ fontSize: 48 }} data-testid="drop-text">
        {text}
      </span>
    </span>
  );
}

function Story({ item, onNext, tappable }: { item: NewsItem; onNext: () => void; tappable: boolean }) {
  const { sets, change } = useItemSets();
  const read = sets.read.has(item.id);
  const text = stripCitations(item.short || item.summary);
  const source = item.source || sourceName(item.url) || 'Source';
  return (
    <div className="flex h-full flex-col gap-4 p-6 sm:p-10">
      <h2 className="text-sm font-semibold uppercase tracking-wide text-indigo-600 dark:text-indigo-400">{source}</h2>
      {tappable ? (
        // The story itself is the "next" control, so a tap anywhere on the text advances.
        <button type="button" aria-label="Next story" onClick={onNext} className="flex min-h-0 flex-1 cursor-pointer flex-col text-left">
          <FittedText text={text} />
        </button>
      ) : (
        <div className="flex min-h-0 flex-1 flex-col">
          <FittedText text={text} />
        </div>
      )}
      <div className="flex items-center gap-3">
        {item.url ? (
          <a href={item.url} target="_blank" rel="noopener noreferrer" className={buttonClass('outline', 'sm')}>
            More <ExternalLink aria-hidden="true" className="h-3.5 w-3.5" />
            <span className="sr-only">(opens in a new tab)</span>
          </a>
        ) : (
          <span className="text-sm text-slate-500">No source URL</span>
        )}
        <button type="button" aria-pressed={read} onClick={() => change('read', item.id, !read)} className={buttonClass('ghost', 'sm')}>
          <Check aria-hidden="true" className="h-4 w-4" /> {read ? 'Read' : 'Mark as read'}
        </button>
      </div>
    </div>
  );
}

export function DropsView() {
  const { isSubscriber } = useAuth();
  const { sets } = useItemSets();
  const news = useNews();
  const [index, setIndex] = useState(0);
  const [paywall, setPaywall] = useState(false);
  const lockedUntil = useRef(0);
  const touchStart = useRef<number | null>(null);

  // Read items stay in place while Drops is open so the story under the reader does not jump.
  const loaded = useMemo(() => news.data?.pages.flatMap((p) => p.items), [news.data]);
  const items = useDropItems(loaded, sets);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = news;

  // Subscribers read on past the loaded page: the next one is fetched a few stories ahead.
  useEffect(() => {
    if (isSubscriber && hasNextPage && !isFetchingNextPage && items.length > 0 && index >= items.length - 3) void fetchNextPage();
  }, [isSubscriber, hasNextPage, isFetchingNextPage, fetchNextPage, index, items.length]);

  const next = useCallback(() => {
    const now = Date.now();
    if (now < lockedUntil.current) return;
    const step = nextDrop(index, items.length, isSubscriber);
    if (step.kind === 'none') return;
    lockedUntil.current = now + STEP_LOCK_MS;
    if (step.kind === 'paywall') setPaywall(true);
    else setIndex(step.index);
  }, [index, items.length, isSubscriber]);

  if (news.isPending) return <Spinner label="Loading drops" />;
  if (news.isError) return <StateMessage title="Error loading news">{news.error.message}</StateMessage>;
  if (items.length === 0) return <StateMessage title="No news items available" />;

  const dots = progressDots(items.length, index);
  const onPointerDown = (e: PointerEvent) => {
    touchStart.current = e.clientY;
  };
  const onPointerUp = (e: PointerEvent) => {
    if (touchStart.current !== null && isSwipeUp(touchStart.current, e.clientY)) next();
    touchStart.current = null;
  };

  return (
    <section
      aria-label="Drops"
      className="relative mx-auto flex h-[calc(100dvh-7.5rem)] w-full max-w-3xl flex-col overflow-hidden rounded-xl border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
      onPointerDown={onPointerDown}
      onPointerUp={onPointerUp}
      style={{ touchAction: 'pan-x' }}
    >
      {paywall ? (
        <Paywall />
      ) : (
        <>
          <div className="flex justify-center gap-1.5 pt-3" aria-label={`Story ${index + 1} of ${items.length}`} role="img">
            {dots.dots.map((dot, i) => (
              <span key={i} className={`h-1.5 w-6 rounded-full ${dot.active ? 'bg-indigo-600' : 'bg-slate-300 dark:bg-slate-700'}`} />
            ))}
            {dots.trailing && <span className={`h-1.5 w-1.5 rounded-full ${index >= 7 ? 'bg-indigo-600' : 'bg-slate-300 dark:bg-slate-700'}`} />}
          </div>
          <div className="min-h-0 flex-1" data-testid="drop-story" data-index={index}>
            <Story key={items[index].id} item={items[index]} onNext={next} tappable={canTapNext(index, items.length, isSubscriber)} />
          </div>
        </>
      )}
    </section>
  );
}

/**
 * The stories of this visit. Items already shown stay put even when marked read, so the story
 * under the reader never jumps; pages loaded later only append their new, visible items.
 */
function useDropItems(loaded: NewsItem[] | undefined, sets: ItemSets): NewsItem[] {
  const [state, setState] = useState<{ from: NewsItem[] | undefined; items: NewsItem[] }>({ from: undefined, items: [] });
  if (loaded && loaded !== state.from) {
    const known = new Set(state.items.map((item) => item.id));
    const items = [...state.items, ...visibleInFeed(loaded, sets).filter((item) => !known.has(item.id))];
    setState({ from: loaded, items });
    return items;
  }
  return state.items;
}
