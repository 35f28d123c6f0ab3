// Written from `Mark::ALL` (api/src/news.rs) by
// `RADAR_UPDATE_MARKS=1 cargo test -p radar-api marks`: do not edit by hand.
import type { components } from '@/lib/api/schema';

/** Every mark kind, with its routes' path segment and whether it takes an item out of the feed. */
export const MARK_KINDS = [
  { mark: 'favorite', segment: 'favorites', leavesFeed: false },
  { mark: 'hidden', segment: 'hidden', leavesFeed: true },
  { mark: 'read', segment: 'read', leavesFeed: true },
] as const satisfies readonly { mark: keyof components['schemas']['ItemMarks']; segment: string; leavesFeed: boolean }[];
