import { describe, expect, it } from 'vitest';
import { DEFAULT_TV_INTERVAL, initialTvState, nextInterval, nextSlide, tvItems, tvReducer, type TvState } from '@/features/tv-mode/tv-mode';

describe('TV interval', () => {
  it('starts at 10 and cycles 10 → 15 → 20 → 5 → 10', () => {
    const seen = [DEFAULT_TV_INTERVAL];
    for (let i = 0; i < 4; i++) seen.push(nextInterval(seen[seen.length - 1]));
    expect(seen).toEqual([10, 15, 20, 5, 10]);
  });
});

describe('TV slides', () => {
  it('wraps to the start', () => {
    expect(nextSlide(0, 3)).toBe(1);
    expect(nextSlide(2, 3)).toBe(0);
    expect(nextSlide(0, 0)).toBe(0);
  });
  it('shows free users the first 5 items only', () => {
    const items = [1, 2, 3, 4, 5, 6, 7];
    expect(tvItems(items, false)).toEqual([1, 2, 3, 4, 5]);
    expect(tvItems(items, true)).toEqual(items);
  });
});

describe('tvReducer', () => {
  const tick = (state: TvState, times: number, count = 3) => {
    for (let i = 0; i < times; i++) state = tvReducer(state, { type: 'tick', count });
    return state;
  };

  it('advances after the interval and wraps', () => {
    let state = tick(initialTvState, 9);
    expect(state).toMatchObject({ index: 0, remaining: 1 });
    state = tick(state, 1);
    expect(state).toMatchObject({ index: 1, remaining: 10 });
    state = tick(state, 20);
    expect(state.index).toBe(0);
  });

  it('stands still while paused', () => {
    const paused = tvReducer(initialTvState, { type: 'toggle-pause' });
    expect(tick(paused, 30)).toEqual(paused);
    expect(tvReducer(paused, { type: 'toggle-pause' }).paused).toBe(false);
  });

  it('restarts the countdown when the interval changes', () => {
    const state = tvReducer(tick(initialTvState, 4), { type: 'cycle-interval' });
    expect(state).toMatchObject({ interval: 15, remaining: 15 });
  });
});
