import { LogOut, Pause, Play, Timer } from 'lucide-react';
import { useEffect, useReducer } from 'react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { initialTvState, tvReducer } from '@/features/tv-mode/tv-mode';

export interface Slide {
  id: string;
  title: string;
  text: string;
  source: string;
}

/** Full-screen slideshow: one slide per interval, wrapping; pausing freezes the countdown. */
export function TvSlideshow({ slides, exitTo }: { slides: Slide[]; exitTo: string }) {
  const [{ index, paused, interval, remaining }, dispatch] = useReducer(tvReducer, initialTvState);

  useEffect(() => {
    if (paused || slides.length === 0) return;
    const timer = window.setInterval(() => dispatch({ type: 'tick', count: slides.length }), 1000);
    return () => window.clearInterval(timer);
  }, [paused, slides.length]);

  const slide = slides[index % Math.max(slides.length, 1)];
  const progress = slides.length ? ((index + 1) / slides.length) * 100 : 0;

  return (
    <div className="flex min-h-screen flex-col bg-slate-950 text-white">
      <div className="flex flex-wrap items-center gap-2 p-3 sm:p-4">
        <Link to={exitTo} className={buttonClass('secondary', 'sm')}>
          <LogOut aria-hidden="true" className="h-4 w-4" /> Exit TV Mode
        </Link>
        <div className="ml-auto flex items-center gap-2">
          <button type="button" className={buttonClass('secondary', 'sm')} onClick={() => dispatch({ type: 'toggle-pause' })}>
            {paused ? <Play aria-hidden="true" className="h-4 w-4" /> : <Pause aria-hidden="true" className="h-4 w-4" />}
            {paused ? 'Resume' : 'Pause'}
          </button>
          <button
            type="button"
            className={buttonClass('secondary', 'sm')}
            onClick={() => dispatch({ type: 'cycle-interval' })}
            aria-label={`Interval ${interval} seconds, change`}
          >
            <Timer aria-hidden="true" className="h-4 w-4" /> {interval}s
          </button>
        </div>
      </div>
      <main className="flex flex-1 items-center justify-center px-6 py-8 sm:px-16">
        {slide ? (
          <article className="max-w-4xl" data-testid="tv-slide" aria-live="polite">
            <p className="text-sm font-semibold uppercase tracking-wide text-indigo-300">{slide.source}</p>
            <h1 className="mt-3 text-3xl font-bold leading-tight sm:text-5xl">{slide.title}</h1>
            <p className="mt-6 text-lg text-slate-300 sm:text-2xl">{slide.text}</p>
          </article>
        ) : (
          <p>No news items available</p>
        )}
      </main>
      <div className="p-4">
        <div className="flex justify-between text-sm text-slate-300">
          <span data-testid="tv-position">
            {slides.length ? index + 1 : 0} of {slides.length}
          </span>
          <span data-testid="tv-countdown">{paused ? 'Paused' : `Next in ${remaining}s`}</span>
        </div>
        <div
          className="mt-2 h-1.5 w-full overflow-hidden rounded-full bg-slate-800"
          role="progressbar"
          aria-label="Slideshow progress"
          aria-valuemin={0}
          aria-valuemax={slides.length}
          aria-valuenow={slides.length ? index + 1 : 0}
        >
          <div className="h-full bg-indigo-500 transition-all" style={{ width: `${progress}%` }} />
        </div>
      </div>
    </div>
  );
}
