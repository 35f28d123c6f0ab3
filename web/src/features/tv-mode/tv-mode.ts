// TV mode (docs/product.md §4 and §9): auto-advance; the interval cycles 10 → 15 → 20 → 5 → 10 s. The
// slides are what the server gives the reader, paged on as the show nears the end of what
// is loaded; it wraps to the start once everything is loaded.
export const TV_INTERVALS = [10, 15, 20, 5] as const;
export const DEFAULT_TV_INTERVAL = 10;
/** One countdown step. */
export const TICK_MS = 1000;

export function nextInterval(current: number): number {
  const at = TV_INTERVALS.indexOf(current as (typeof TV_INTERVALS)[number]);
  return TV_INTERVALS[(at + 1) % TV_INTERVALS.length];
}

/**
 * The slide after `index` of `count` loaded; at the end it wraps only when nothing more is to
 * come. While more are coming, one step past the last loaded slide is kept (`index === count`):
 * the show stays on the last slide and moves on as soon as the next page arrives, so a key
 * pressed while the page loads is not lost.
 */
export function nextSlide(index: number, count: number, allLoaded: boolean): number {
  if (count === 0) return 0;
  if (index + 1 < count) return index + 1;
  return allLoaded ? 0 : count;
}

/** The slide on screen for `index`: a step still waiting for its page shows the last loaded one. */
export function shownSlide(index: number, count: number): number {
  return Math.min(index, Math.max(count - 1, 0));
}

/** The slide before the one on screen, wrapping to the last loaded one. */
export function previousSlide(index: number, count: number): number {
  if (count === 0) return 0;
  return (shownSlide(index, count) - 1 + count) % count;
}

export interface TvState {
  index: number;
  paused: boolean;
  interval: number;
  /** Seconds until the next slide. */
  remaining: number;
}

export type TvAction =
  | { type: 'tick'; count: number; allLoaded: boolean }
  | { type: 'next'; count: number; allLoaded: boolean }
  | { type: 'previous'; count: number }
  | { type: 'toggle-pause' }
  | { type: 'cycle-interval' };

export const initialTvState: TvState = { index: 0, paused: false, interval: DEFAULT_TV_INTERVAL, remaining: DEFAULT_TV_INTERVAL };

/** One-second ticks count down; at zero the next slide shows and the countdown restarts. Keys step at once. */
export function tvReducer(state: TvState, action: TvAction): TvState {
  switch (action.type) {
    case 'tick':
      if (state.paused) return state;
      if (state.remaining > 1) return { ...state, remaining: state.remaining - 1 };
      return { ...state, index: nextSlide(state.index, action.count, action.allLoaded), remaining: state.interval };
    case 'next':
      return { ...state, index: nextSlide(state.index, action.count, action.allLoaded), remaining: state.interval };
    case 'previous':
      return { ...state, index: previousSlide(state.index, action.count), remaining: state.interval };
    case 'toggle-pause':
      return { ...state, paused: !state.paused };
    case 'cycle-interval': {
      const interval = nextInterval(state.interval);
      return { ...state, interval, remaining: interval };
    }
  }
}

/** TV keys: → and ← step, Space pauses and resumes, Esc leaves. */
export function tvKey(key: string): 'next' | 'previous' | 'pause' | 'exit' | null {
  if (key === 'ArrowRight') return 'next';
  if (key === 'ArrowLeft') return 'previous';
  if (key === ' ' || key === 'Spacebar') return 'pause';
  if (key === 'Escape') return 'exit';
  return null;
}
