import { describe, expect, it } from 'vitest';
import { keyPointsCardFor } from '@/features/weekly-summary/key-points';
import type { WeeklySummary } from '@/lib/api/types';

const week = (id: string, start: string, end: string, points = 5): WeeklySummary => ({
  id,
  title: `Week ${id}`,
  summary: 'A week.',
  content: [],
  start_date: start,
  end_date: end,
  generated_date: end,
  article_count: 12,
  key_points: Array.from({ length: points }, (_, i) => ({ text: `Story ${i}.`, sources: [{ name: 'Outlet', url: `https://example.com/${i}` }] })),
});

// Newest first, as the archive answers.
const archive = [week('w47', '2026-11-16T00:00:00Z', '2026-11-22T23:59:59Z'), week('w46', '2026-11-09T00:00:00Z', '2026-11-15T23:59:59Z')];

describe('keyPointsCardFor', () => {
  it("shows the newest week's points in the next week's first three days", () => {
    expect(keyPointsCardFor(archive, new Date('2026-11-23T00:00:00Z'), null)?.id).toBe('w47');
    expect(keyPointsCardFor(archive, new Date('2026-11-25T23:59:00Z'), null)?.id).toBe('w47');
  });
  it('shows nothing from Thursday on, and never an older week', () => {
    expect(keyPointsCardFor(archive, new Date('2026-11-26T00:00:00Z'), null)).toBeNull();
    expect(keyPointsCardFor(archive.slice(1), new Date('2026-11-23T08:00:00Z'), null)).toBeNull();
  });
  it('shows nothing before the week has ended', () => {
    expect(keyPointsCardFor(archive, new Date('2026-11-22T12:00:00Z'), null)).toBeNull();
  });
  it('shows nothing once dismissed, until the next week', () => {
    expect(keyPointsCardFor(archive, new Date('2026-11-23T08:00:00Z'), 'w47')).toBeNull();
    expect(keyPointsCardFor(archive, new Date('2026-11-23T08:00:00Z'), 'w46')?.id).toBe('w47');
  });
  it('shows nothing for a week without key points, or without any week', () => {
    const bare = [week('w47', '2026-11-16T00:00:00Z', '2026-11-22T23:59:59Z', 0)];
    expect(keyPointsCardFor(bare, new Date('2026-11-23T08:00:00Z'), null)).toBeNull();
    expect(keyPointsCardFor([], new Date('2026-11-23T08:00:00Z'), null)).toBeNull();
  });
});
