// When the feed shows a week's "All You Need to Know" (docs/product.md §12).
import type { WeeklySummary } from '@/lib/api/types';

/**
 * The feed carries the newest week's key points for this long after the week ends: the new
 * week's first days (a week ends Sunday 23:59:59 UTC, so through Wednesday).
 */
export const KEY_POINTS_CARD_DAYS = 3;

/** Where this browser remembers the summary whose card its reader dismissed. */
export const KEY_POINTS_DISMISSED_KEY = 'radar:key-points-dismissed';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The summary whose key points the feed shows at `now`: the newest of `summaries` (the
 * archive, newest first) when it has key points, its week ended less than
 * {@link KEY_POINTS_CARD_DAYS} ago, and its card is not the one dismissed; none otherwise.
 */
export function keyPointsCardFor(summaries: readonly WeeklySummary[], now: Date, dismissed: string | null): WeeklySummary | null {
  const newest = summaries[0];
  if (!newest?.key_points?.length || newest.id === dismissed) return null;
  const since = now.getTime() - Date.parse(newest.end_date);
  return since >= 0 && since < KEY_POINTS_CARD_DAYS * DAY_MS ? newest : null;
}
