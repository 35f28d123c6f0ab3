import { BookOpen, ChevronDown, ChevronUp, Lock, Zap } from 'lucide-react';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type PointerEvent } from 'react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { EmptyState } from '@/components/ui/empty-state';
import { Spinner } from '@/components/ui/spinner';
import { StateMessage } from '@/components/ui/state-message';
import { paths, READER_STATE, readerPath } from '@/config/paths';
import { feedEnd, loadedItems, useNews } from '@/features/news/api/get-news';
import { ItemActions } from '@/features/news/components/item-actions';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import { SourceBadge } from '@/features/news/components/source-badge';
import { itemSource } from '@/features/news/source';
import { canTapNext, dropsKey, fitFontSize, nextDrop, previousDrop, progressDots, PROGRESS_DOTS, STEP_LOCK_MS, swipeDirection } from '@/features/news/drops';
import { visibleInFeed, type ItemSets } from '@/features/news/item-sets';
import { storySources } from '@/features/news/story';
import type { NewsItem } from '@/lib/api/types';

/** How many stories before the last loaded one Drops asks for the next page. */
const PAGE_AHEAD = 3;

/** The paywall after the last story the server allowed; `allowed` is the page's `limit` (5 for a free reader, docs/product.md §9). */
function Paywall({ allowed }: { allowed: number }) {
  return (
    <div className="flex h-full flex-col items-center justify-center gap-4 px-6 text-center" data-testid="drops-paywall">
      <Lock aria-hidden="true" className="h-10 w-10 text-indigo-600" />
      <h2 className="text-2xl font-bold">Premium Content</h2>
      <p className="max-w-md text-slate-700 dark:text-slate-300">
        You&apos;ve reached the free limit of {allowed} stories. Subscribe now to unlock unlimited access to all AI news.
      </p>
      <Link to={paths.subscribe} className={buttonClass('primary', 'lg')}>
        Subscribe Now
      </Link>
      <p className="max-w-md text-sm text-slate-600 dark:text-slate-400">
        Premium members get unlimited drops, priority updates and exclusive AI insights.
      </p>
    </div>
  );
}

/**
 * The story text at the largest size between 24 and 48 px that fits its box; when even 24
 * does not fit, it is cut with a fade and a "Read more" that opens the reader.
 */
function FittedText({ text, readMore }: { text: string; readMore: string }) {
  const box = useRef<HTMLDivElement>(null);
  const inner = useRef<HTMLParagraphElement>(null);
  const [overflows, setOverflows] = useState(false);
  useLayoutEffect(() => {
    const fit = () => {
      const outer = box.current;
      const p = inner.current;
      if (!outer || !p) return;
      const { size, fits } = fitFontSize((size) => {
        p.style.fontSize = `${size}px`;
        return p.scrollHeight <= outer.clientHeight && p.scrollWidth <= outer.clientWidth;
      });
      p.style.fontSize = `${size}px`;
      setOverflows(!fits);
    };
    fit();
    // The box changes size with the window, the phone's toolbars and the story's footer.
    if (typeof ResizeObserver === 'undefined') {
      window.addEventListener('resize', fit);
      return () => window.removeEventListener('resize', fit);
    }
    const observer = new ResizeObserver(fit);
    if (box.current) observer.observe(box.current);
    return () => observer.disconnect();
  }, [text]);
  return (
    <div ref={box} className="relative min-h-0 w-full flex-1 overflow-hidden" data-testid="drop-text-box" data-overflows={overflows || undefined}>
      <p ref={inner} className="font-semibold leading-tight tracking-tight" style={{ fontSize: 48 }} data-testid="drop-text">
        {text}
      </p>
      {overflows && (
        <div className="pointer-events-none absolute inset-x-0 bottom-0 flex h-28 items-end justify-center bg-gradient-to-t from-white via-white/90 to-transparent dark:from-slate-900 dark:via-slate-900/90">
          <Link to={readMore} state={READER_STATE} className={buttonClass('secondary', 'sm', 'pointer-events-auto relative z-10 mb-1')} onPointerDown={(e) => e.stopPropagation()}>
            <BookOpen aria-hidden="true" className="h-4 w-4" /> Read more
          </Link>
        </div>
      )}
    </div>
  );
}

function Story({ item, onNext, tappable }: { item: NewsItem; onNext: () => void; tappable: boolean }) {
  const text = item.short || item.summary;
  const source = itemSource(item);
  const reader = readerPath('drops', item.id);
  const sources = storySources(item);
  return (
    <div className="flex h-full flex-col gap-4 p-5 sm:p-8">
      <div className="flex items-center gap-2">
        <SourceBadge source={source} />
        <h2 className="text-sm font-semibold uppercase tracking-wide text-indigo-700 dark:text-indigo-300">{source}</h2>
        {sources && (
          <span className="text-sm text-slate-600 dark:text-slate-400" data-testid="story-sources">
            <span aria-hidden="true">· </span>
            {sources}
          </span>
        )}
      </div>
      {/* A tap anywhere on the text advances; the text stays text to assistive technology
          (inside a button it would be read as the button's name), which gets the "Next story"
          button below, as the keyboard gets j, Space and the arrows. */}
      <div onClick={tappable ? onNext : undefined} className={`flex min-h-0 flex-1 flex-col text-left ${tappable ? 'cursor-pointer' : ''}`}>
        <FittedText text={text} readMore={reader} />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Link to={reader} state={READER_STATE} className={buttonClass('outline', 'sm')}>
          <BookOpen aria-hidden="true" className="h-4 w-4" /> Read story
        </Link>
        {tappable && (
          <button type="button" onClick={onNext} className={buttonClass('secondary', 'sm')}>
            <ChevronDown aria-hidden="true" className="h-4 w-4" /> Next story
          </button>
        )}
        {!item.url && <span className="text-sm text-slate-600 dark:text-slate-400">No source URL</span>}
        <div className="ml-auto min-w-0">
          <ItemActions item={item} view="drops" />
        </div>
      </div>
    </div>
  );
}

export function DropsView() {
  const { sets } = useItemSets();
  const news = useNews();
  const [index, setIndex] = useState(0);
  const [paywall, setPaywall] = useState(false);
  const lockedUntil = useRef(0);
  const pointerStart = useRef<number | null>(null);

  // Read items stay in place while Drops is open so the story under the reader does not jump.
  const loaded = useMemo(() => loadedItems(news.data?.pages), [news.data]);
  const items = useDropItems(news.data ? loaded : undefined, sets);
  const end = feedEnd(news.data?.pages);
  const { isFetchingNextPage, fetchNextPage } = news;
  const at = Math.min(index, Math.max(items.length - 1, 0));

  // The next page is asked for a few stories ahead, so paging on never waits.
  useEffect(() => {
    if (end === 'more' && !isFetchingNextPage && items.length > 0 && at >= items.length - PAGE_AHEAD) void fetchNextPage();
  }, [end, isFetchingNextPage, fetchNextPage, at, items.length]);

  const step = useCallback(
    (direction: 'next' | 'previous') => {
      const now = Date.now();
      if (now < lockedUntil.current) return;
      if (direction === 'previous') {
        if (paywall) setPaywall(false);
        else setIndex(previousDrop(at));
        lockedUntil.current = now + STEP_LOCK_MS;
        return;
      }
      if (paywall) return;
      const next = nextDrop(at, items.length, end);
      if (next.kind === 'none') return;
      lockedUntil.current = now + STEP_LOCK_MS;
      if (next.kind === 'paywall') setPaywall(true);
      else if (next.kind === 'advance') setIndex(next.index);
      else void fetchNextPage().then(() => setIndex(at + 1));
    },
    [at, items.length, end, paywall, fetchNextPage],
  );

  // Keys work wherever the focus is (a tap moves it, and a story that changes takes it away),
  // except in a field or while a dialog such as the reader is open; Space on a focused link
  // or button presses that control instead.
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || document.querySelector('[role="dialog"]')) return;
      const target = e.target instanceof HTMLElement ? e.target : null;
      if (target?.closest('input, textarea, select, [contenteditable="true"]')) return;
      if (e.key === ' ' && target?.closest('a, button')) return;
      const direction = dropsKey(e.key, e.shiftKey);
      if (!direction) return;
      e.preventDefault();
      step(direction);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [step]);

  if (news.isPending) return <Spinner label="Loading drops" />;
  if (news.isError) return <StateMessage title="Error loading news">{news.error.message}</StateMessage>;
  if (items.length === 0)
    return (
      <EmptyState
        icon={Zap}
        title="No news items available"
        action={
          <Link to={paths.app} className={buttonClass('outline', 'sm')}>
            Back to Feed
          </Link>
        }
      >
        You are all caught up. New stories arrive through the day.
      </EmptyState>
    );

  const dots = progressDots(items.length, at);
  const onPointerDown = (e: PointerEvent) => {
    pointerStart.current = e.clientY;
  };
  const onPointerUp = (e: PointerEvent) => {
    const direction = pointerStart.current === null ? null : swipeDirection(pointerStart.current, e.clientY);
    pointerStart.current = null;
    if (direction) step(direction);
  };

  return (
    <section
      aria-label="Drops"
      aria-roledescription="story viewer"
      className="relative mx-auto flex h-[calc(100dvh-9.5rem-2px)] w-full max-w-3xl select-none sm:h-[calc(100dvh-10rem-2px)] flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm outline-none lg:h-[calc(100dvh-7.5rem-2px)] dark:border-slate-800 dark:bg-slate-900"
      onPointerDown={onPointerDown}
      onPointerUp={onPointerUp}
      onPointerCancel={() => (pointerStart.current = null)}
      onDragStart={(e) => e.preventDefault()}
      style={{ touchAction: 'pan-x' }}
    >
      {paywall ? (
        <Paywall allowed={news.data?.pages.at(-1)?.limit ?? items.length} />
      ) : (
        <>
          <div className="flex items-center justify-center gap-1.5 pt-3" aria-label={`Story ${at + 1} of ${items.length}`} role="img">
            {dots.dots.map((dot, i) => (
              <span key={i} className={`h-1.5 w-6 rounded-full ${dot.active ? 'bg-indigo-600' : 'bg-slate-300 dark:bg-slate-700'}`} />
            ))}
            {dots.trailing && <span className={`h-1.5 w-1.5 rounded-full ${at >= PROGRESS_DOTS ? 'bg-indigo-600' : 'bg-slate-300 dark:bg-slate-700'}`} />}
          </div>
          {at > 0 && (
            <button
              type="button"
              onClick={() => step('previous')}
              className="absolute right-3 top-2 inline-flex h-8 items-center gap-1 rounded-md px-2 text-xs font-medium text-slate-600 hover:bg-slate-100 dark:text-slate-400 dark:hover:bg-slate-800"
            >
              <ChevronUp aria-hidden="true" className="h-4 w-4" /> Previous
            </button>
          )}
          <div className="min-h-0 flex-1" data-testid="drop-story" data-index={at}>
            <Story key={items[at].id} item={items[at]} onNext={() => step('next')} tappable={canTapNext(at, items.length, end)} />
          </div>
        </>
      )}
    </section>
  );
}

/**
 * The stories of this visit. Items already shown stay put even when marked read, so the story
 * under the reader never jumps; items the server adds later (a page on, a refill) are appended.
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
