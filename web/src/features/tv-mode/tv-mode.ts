// TV mode (spec 4 and 9): auto-advance that wraps; the interval cycles 10 → 15 → 20 → 5 → 10 s.
export const TV_INTERVALS = [10, 15, 20, 5] as const;
export const DEFAULT_TV_INTERVAL = 10;
export const FREE_TV_ITEMS = 5;

export function nextInterval(current: number): number {
  const at = TV_INTERVALS.indexOf(current as (typeof TV_INTERVALS)[number]);
  return TV_INTERVALS[(at + 1) % TV_INTERVALS.length];
}

export function nextSlide(index: number, count: number): number {
  return count === 0 ? 0 : (index + 1) % count;
}

export function tvItems<T>(items: readonly T[], subscriber: boolean): T[] {
  return subscriber ? [...items] : items.slice(0, FREE_TV_ITEMS);
}

export interface TvState {
  index: number;
  paused: boolean;
  interval: number;
  /** Seconds until the next slide. */
  remaining: number;
}

export type TvAction = { type: 'tick'; count: number } | { type: 'toggle-pause' } | { type: 'cycle-interval' };

export const initialTvState: TvState = { index: 0, paused: false, interval: DEFAULT_TV_INTERVAL, remaining: DEFAULT_TV_INTERVAL };

/** One-second ticks count down; at zero the next slide shows and the countdown restarts. */
export function tvReducer(state: TvState, action: TvAction): TvState {
  switch (action.type) {
    case 'tick':
      if (state.paused) return state;
      if (state.remaining > 1) return { ...state, remaining: state.remaining - 1 };
      return { ...state, index: nextSlide(state.index, action.count), remaining: state.interval };
    case 'toggle-pause':
      return { ...state, paused: !state.paused };
    case 'cycle-interval': {
      const interval = nextInterval(state.interval);
      return { ...state, interval, remaining: interval };
    }
  }
}
