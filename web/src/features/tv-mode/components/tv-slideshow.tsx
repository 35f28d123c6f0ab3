import { LogOut, Pause, Play, Timer, Tv } from 'lucide-react';
import { useEffect, useReducer } from 'react';
import { Link, useNavigate } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { initialTvState, shownSlide, TICK_MS, tvKey, tvReducer } from '@/features/tv-mode/tv-mode';

export interface Slide {
  id: string;
  title: string;
  text: string;
  source: string;
  /** "5 sources" when other outlets reported the same story. */
  sources?: string | null;
}

/** How many slides before the last loaded one the show asks for more. */
const PAGE_AHEAD = 3;

/**
 * Full-screen slideshow: one slide per interval, wrapping once everything is loaded;
 * pausing freezes the countdown. `total` is the server's count of what the reader can reach
 * ("n of m"); `onNearEnd` asks for the next page while `allLoaded` is false.
 */
export function TvSlideshow({
  slides,
  total,
  allLoaded,
  onNearEnd,
  exitTo,
}: {
  slides: Slide[];
  total: number;
  allLoaded: boolean;
  onNearEnd?: () => void;
  exitTo: string;
}) {
  const [{ index, paused, interval, remaining }, dispatch] = useReducer(tvReducer, initialTvState);
  const navigate = useNavigate();
  const count = slides.length;

  useEffect(() => {
    if (paused || count === 0) return;
    const timer = window.setInterval(() => dispatch({ type: 'tick', count, allLoaded }), TICK_MS);
    return () => window.clearInterval(timer);
  }, [paused, count, allLoaded]);

  useEffect(() => {
    if (!allLoaded && count > 0 && index >= count - PAGE_AHEAD) onNearEnd?.();
  }, [allLoaded, count, index, onNearEnd]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.target instanceof HTMLElement && event.target.closest('button, a') && event.key === ' ') return;
      const action = tvKey(event.key);
      if (!action) return;
      event.preventDefault();
      if (action === 'exit') navigate(exitTo);
      else if (action === 'pause') dispatch({ type: 'toggle-pause' });
      else if (action === 'next') dispatch({ type: 'next', count, allLoaded });
      else dispatch({ type: 'previous', count });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [count, allLoaded, exitTo, navigate]);

  const slide = slides[shownSlide(index, count)];
  const position = count ? shownSlide(index, count) + 1 : 0;
  const progress = total ? (position / total) * 100 : 0;

  return (
    <div className="flex min-h-screen flex-col bg-slate-950 text-white">
      {/* Header, main and footer: every part of the screen is in a landmark. */}
      <header className="flex flex-wrap items-center gap-2 p-3 sm:p-4">
        <Link to={exitTo} className={buttonClass('secondary', 'sm')}>
          <LogOut aria-hidden="true" className="h-4 w-4" /> Exit TV Mode
        </Link>
        {count > 0 && (
          <div className="ml-auto flex items-center gap-2">
            <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => dispatch({ type: 'toggle-pause' })}>
              {paused ? <Play aria-hidden="true" className="h-4 w-4" /> : <Pause aria-hidden="true" className="h-4 w-4" />}
              {paused ? 'Resume' : 'Pause'}
            </button>
            <button
              type="button"
              className={buttonClass('secondary', 'sm')}
              onClick={() => dispatch({ type: 'cycle-interval' })}
              aria-label={`Interval ${interval}s, change`}
            >
              <Timer aria-hidden="true" className="h-4 w-4" /> {interval}s
            </button>
          </div>
        )}
      </header>
      <main className="flex flex-1 items-center justify-center px-6 py-8 sm:px-16">
        {slide ? (
          <article className="max-w-4xl" data-testid="tv-slide" aria-live="polite">
            <p className="text-sm font-semibold uppercase tracking-wide text-indigo-300">
              {slide.source}
              {slide.sources && (
                <span className="font-normal normal-case tracking-normal text-slate-300" data-testid="story-sources">
                  <span aria-hidden="true"> · </span>
                  {slide.sources}
                </span>
              )}
            </p>
            <h1 className="mt-3 text-3xl font-bold leading-tight tracking-tight sm:text-5xl">{slide.title}</h1>
            <p className="mt-6 line-clamp-6 text-lg text-slate-300 sm:text-2xl">{slide.text}</p>
          </article>
        ) : (
          <div className="flex flex-col items-center gap-3 text-center" data-testid="empty-state">
            <Tv aria-hidden="true" className="h-12 w-12 text-indigo-300" />
            <h1 className="text-2xl font-semibold">No news items available</h1>
            <p className="max-w-sm text-slate-300">There is nothing to show on the big screen yet. New stories arrive through the day.</p>
          </div>
        )}
      </main>
      {count > 0 && (
        <footer className="p-4">
          <div className="flex justify-between text-sm text-slate-300">
            <span data-testid="tv-position">
              {position} of {total}
            </span>
            <span className="hidden text-slate-400 sm:inline">← → step · Space pauses · Esc exits</span>
            <span data-testid="tv-countdown">{paused ? 'Paused' : `Next in ${remaining}s`}</span>
          </div>
          <div
            className="mt-2 h-1.5 w-full overflow-hidden rounded-full bg-slate-800"
            role="progressbar"
            aria-label="Slideshow progress"
            aria-valuemin={0}
            aria-valuemax={total}
            aria-valuenow={position}
          >
            <div className="h-full bg-indigo-500 transition-all" style={{ width: `${progress}%` }} />
          </div>
        </footer>
      )}
    </div>
  );
}
