import type { WeeklySummary } from '@/lib/api/types';
import { formatDate } from '@/lib/relative-time';

/**
 * A summary's week, "Nov 16, 2026 – Nov 22, 2026". Its own module: the feed's key points card
 * needs it, and importing it from the summaries' list would bring that page into the feed's code.
 */
export const dateRange = (s: Pick<WeeklySummary, 'start_date' | 'end_date'>) => `${formatDate(s.start_date)} – ${formatDate(s.end_date)}`;
