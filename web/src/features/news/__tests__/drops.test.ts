import { describe, expect, it } from 'vitest';
import { canTapNext, fitFontSize, isSwipeUp, nextDrop, progressDots } from '@/features/news/drops';

describe('nextDrop', () => {
  it('advances one story at a time', () => {
    expect(nextDrop(0, 10, false)).toEqual({ kind: 'advance', index: 1 });
    expect(nextDrop(3, 10, false)).toEqual({ kind: 'advance', index: 4 });
  });
  it('shows the paywall to a free user pressing next on the 5th story', () => {
    expect(nextDrop(4, 10, false)).toEqual({ kind: 'paywall' });
    expect(nextDrop(4, 5, false)).toEqual({ kind: 'paywall' });
  });
  it('lets subscribers past the 5th story and stops at the last', () => {
    expect(nextDrop(4, 10, true)).toEqual({ kind: 'advance', index: 5 });
    expect(nextDrop(9, 10, true)).toEqual({ kind: 'none' });
    expect(canTapNext(9, 10, true)).toBe(false);
    expect(canTapNext(2, 3, false)).toBe(false);
  });
});

describe('isSwipeUp', () => {
  it('needs more than 100 px upwards', () => {
    expect(isSwipeUp(500, 400)).toBe(false);
    expect(isSwipeUp(500, 399)).toBe(true);
    expect(isSwipeUp(400, 600)).toBe(false);
  });
});

describe('progressDots', () => {
  it('shows at most 7 dots and a trailing one when more', () => {
    expect(progressDots(3, 1)).toEqual({ dots: [{ active: false }, { active: true }, { active: false }], trailing: false });
    const many = progressDots(12, 0);
    expect(many.dots).toHaveLength(7);
    expect(many.trailing).toBe(true);
    expect(progressDots(7, 6).trailing).toBe(false);
  });
});

describe('fitFontSize', () => {
  it('takes the largest fitting size in 0.5 steps between 24 and 48', () => {
    expect(fitFontSize(() => true)).toBe(48);
    expect(fitFontSize((size) => size <= 30.7)).toBe(30.5);
    expect(fitFontSize(() => false)).toBe(24);
  });
});
