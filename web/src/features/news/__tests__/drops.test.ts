import { describe, expect, it } from 'vitest';
import { canTapNext, dropsKey, fitFontSize, nextDrop, previousDrop, progressDots, swipeDirection } from '@/features/news/drops';

describe('nextDrop', () => {
  it('advances one story at a time', () => {
    expect(nextDrop(0, 10, 'end')).toEqual({ kind: 'advance', index: 1 });
    expect(nextDrop(3, 10, 'subscribe')).toEqual({ kind: 'advance', index: 4 });
  });
  it('shows the paywall after the last story when the allowance is reached', () => {
    expect(nextDrop(4, 5, 'subscribe')).toEqual({ kind: 'paywall' });
  });
  it('pages on while the server hands a cursor, and stops at the very last story', () => {
    expect(nextDrop(19, 20, 'more')).toEqual({ kind: 'load' });
    expect(nextDrop(9, 10, 'end')).toEqual({ kind: 'none' });
    expect(canTapNext(9, 10, 'end')).toBe(false);
    expect(canTapNext(4, 5, 'subscribe')).toBe(true);
  });
  it('goes back one story, not before the first', () => {
    expect(previousDrop(3)).toBe(2);
    expect(previousDrop(0)).toBe(0);
  });
});

describe('swipeDirection', () => {
  it('needs more than 100 px', () => {
    expect(swipeDirection(500, 400)).toBeNull();
    expect(swipeDirection(500, 399)).toBe('next');
    expect(swipeDirection(400, 501)).toBe('previous');
  });
});

describe('dropsKey', () => {
  it('maps arrows, Space, j/k and Page keys', () => {
    for (const key of ['ArrowDown', 'ArrowRight', 'j', 'PageDown', ' ']) expect(dropsKey(key)).toBe('next');
    for (const key of ['ArrowUp', 'ArrowLeft', 'k', 'PageUp']) expect(dropsKey(key)).toBe('previous');
    expect(dropsKey(' ', true)).toBe('previous');
    expect(dropsKey('x')).toBeNull();
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
    expect(fitFontSize(() => true)).toEqual({ size: 48, fits: true });
    expect(fitFontSize((size) => size <= 30.7)).toEqual({ size: 30.5, fits: true });
    expect(fitFontSize((size) => size <= 24)).toEqual({ size: 24, fits: true });
  });
  it('says when even the smallest size overflows', () => {
    expect(fitFontSize(() => false)).toEqual({ size: 24, fits: false });
  });
});
