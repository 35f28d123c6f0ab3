import { describe, expect, it } from 'vitest';
import { feedFooter, feedVisibleCount } from '@/features/news/feed-count';

describe('feedVisibleCount', () => {
  it('is 5 for free users whatever they click', () => {
    expect(feedVisibleCount(false, 0)).toBe(5);
    expect(feedVisibleCount(false, 3)).toBe(5);
  });
  it('is 20 for subscribers plus 20 per Read More', () => {
    expect(feedVisibleCount(true, 0)).toBe(20);
    expect(feedVisibleCount(true, 1)).toBe(40);
    expect(feedVisibleCount(true, 2)).toBe(60);
  });
});

describe('feedFooter', () => {
  it('offers Read More to subscribers while more remain', () => {
    expect(feedFooter(true, 20, 20, true)).toBe('read-more');
    expect(feedFooter(true, 20, 25, false)).toBe('read-more');
    expect(feedFooter(true, 20, 18, false)).toBe('none');
  });
  it('offers Subscribe Now to free users while more remain', () => {
    expect(feedFooter(false, 5, 5, true)).toBe('subscribe');
    expect(feedFooter(false, 5, 3, false)).toBe('none');
  });
});
