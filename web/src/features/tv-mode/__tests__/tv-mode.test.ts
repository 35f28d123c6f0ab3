import { describe, expect, it } from 'vitest';
import { DEFAULT_TV_INTERVAL, initialTvState, nextInterval, nextSlide, previousSlide, shownSlide, tvKey, tvReducer, type TvState } from '@/features/tv-mode/tv-mode';

describe('TV interval', () => {
  it('starts at 10 and cycles 10 → 15 → 20 → 5 → 10', () => {
    const seen = [DEFAULT_TV_INTERVAL];
    for (let i = 0; i < 4; i++) seen.push(nextInterval(seen[seen.length - 1]));
    expect(seen).toEqual([10, 15, 20, 5, 10]);
  });
});

describe('TV slides', () => {
  it('wraps to the start once everything is loaded', () => {
    expect(nextSlide(0, 3, true)).toBe(1);
    expect(nextSlide(2, 3, true)).toBe(0);
    expect(nextSlide(0, 0, true)).toBe(0);
  });
  it('keeps one step past the last loaded slide while more are coming, and shows it when they arrive', () => {
    expect(nextSlide(19, 20, false)).toBe(20);
    expect(nextSlide(20, 20, false)).toBe(20);
    expect(shownSlide(20, 20)).toBe(19);
    expect(shownSlide(20, 40)).toBe(20);
    expect(previousSlide(20, 20)).toBe(18);
    expect(nextSlide(20, 20, true)).toBe(0);
  });
  it('steps back, wrapping to the last', () => {
    expect(previousSlide(2, 3)).toBe(1);
    expect(previousSlide(0, 3)).toBe(2);
  });
});

describe('tvReducer', () => {
  const tick = (state: TvState, times: number, count = 3) => {
    for (let i = 0; i < times; i++) state = tvReducer(state, { type: 'tick', count, allLoaded: true });
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

  it('steps at once on a key and restarts the countdown', () => {
    const state = tvReducer(tick(initialTvState, 4), { type: 'next', count: 3, allLoaded: true });
    expect(state).toMatchObject({ index: 1, remaining: 10 });
    expect(tvReducer(state, { type: 'previous', count: 3 }).index).toBe(0);
  });

  it('restarts the countdown when the interval changes', () => {
    const state = tvReducer(tick(initialTvState, 4), { type: 'cycle-interval' });
    expect(state).toMatchObject({ interval: 15, remaining: 15 });
  });
});

describe('tvKey', () => {
  it('maps →, ←, Space and Esc', () => {
    expect(tvKey('ArrowRight')).toBe('next');
    expect(tvKey('ArrowLeft')).toBe('previous');
    expect(tvKey(' ')).toBe('pause');
    expect(tvKey('Escape')).toBe('exit');
    expect(tvKey('a')).toBeNull();
  });
});
