import { describe, expect, it } from 'vitest';
import { formatDate, relativeTime } from '@/lib/relative-time';

const now = new Date('2026-06-15T12:00:00Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const MIN = 60_000;

describe('relativeTime', () => {
  it.each([
    [0, 'just now'],
    [119_999, 'just now'],
    [2 * MIN, '2 minutes ago'],
    [59 * MIN, '59 minutes ago'],
    [60 * MIN, '1 hour ago'],
    [23 * 60 * MIN, '23 hours ago'],
    [24 * 60 * MIN, '1 day ago'],
    [6 * 24 * 60 * MIN, '6 days ago'],
    [7 * 24 * 60 * MIN, '1 week ago'],
    [29 * 24 * 60 * MIN, '4 weeks ago'],
    [30 * 24 * 60 * MIN, '1 month ago'],
    [95 * 24 * 60 * MIN, '3 months ago'],
  ])('%i ms ago reads %s', (ms, label) => {
    expect(relativeTime(ago(ms), now)).toBe(label);
  });

  it('accepts RFC 3339 strings', () => {
    expect(relativeTime('2026-06-15T09:00:00Z', now)).toBe('3 hours ago');
  });

  it('gives nothing for an unparseable date', () => {
    expect(relativeTime('not a date', now)).toBe('');
  });
});

describe('formatDate', () => {
  it.each(['2026-01-01T12:00:00Z', '2026-11-28T09:00:00Z', '1999-12-31T23:59:59Z', '2026-06-15T00:00:00+14:00'])('writes %s as en-US does', (iso) => {
    expect(formatDate(iso)).toBe(new Date(iso).toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' }));
  });

  it('gives nothing for an unparseable date', () => {
    expect(formatDate('not a date')).toBe('');
  });
});
