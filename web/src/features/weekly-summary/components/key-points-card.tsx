import { ChevronDown, X } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useWeeklySummaries } from '@/features/weekly-summary/api/get-weekly-summaries';
import { KeyPointList } from '@/features/weekly-summary/components/key-point-list';
import { dateRange } from '@/features/weekly-summary/date-range';
import { KEY_POINTS_DISMISSED_KEY, keyPointsCardFor } from '@/features/weekly-summary/key-points';
import { useAuth } from '@/lib/auth';

/**
 * "All You Need to Know" at the top of a subscriber's feed in the new week's first days: the
 * past week's five biggest stories with their sources, a link to the whole summary, and a
 * dismissal this browser remembers for that week. Nothing while the archive loads or fails:
 * the feed is what the reader came for. As a `row` (the feed's list density) it is one line
 * like a story's, its five stories behind a button: a reader who chose that density wants a
 * screen of stories.
 */
export function KeyPointsCard({ row = false }: { row?: boolean }) {
  const { user, isSubscriber } = useAuth();
  const summaries = useWeeklySummaries(isSubscriber ? user?.id : null);
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(KEY_POINTS_DISMISSED_KEY));
  const [open, setOpen] = useState(false);
  const week = summaries.data ? keyPointsCardFor(summaries.data, new Date(), dismissed) : null;
  if (!week?.key_points) return null;
  const dismiss = () => {
    localStorage.setItem(KEY_POINTS_DISMISSED_KEY, week.id);
    setDismissed(week.id);
  };
  const dismissButton = (className?: string) => (
    <Button variant="ghost" size="icon" className={className} aria-label="Dismiss All You Need to Know" onClick={dismiss}>
      <X aria-hidden="true" className="h-4 w-4" />
    </Button>
  );
  const summaryLink = (className: string) => (
    <Link to={paths.weeklySummaryDetail(week.id)} className={`${className} font-medium text-indigo-600 hover:underline dark:text-indigo-400`}>
      Read the weekly summary
    </Link>
  );
  if (row) {
    return (
      <section role="region" aria-labelledby="feed-key-points" className="mb-1 rounded-lg border border-slate-200 bg-white px-3 text-sm dark:border-slate-800 dark:bg-slate-900">
        <div className="flex h-9 items-center gap-3">
          <h2 id="feed-key-points" className="shrink-0 font-semibold">
            All You Need to Know
          </h2>
          <span className="hidden min-w-0 truncate text-xs text-slate-500 sm:inline dark:text-slate-400">{dateRange(week)}</span>
          <button
            type="button"
            aria-expanded={open}
            aria-controls="feed-key-points-list"
            onClick={() => setOpen((was) => !was)}
            className="ml-auto inline-flex shrink-0 items-center gap-1 rounded text-xs font-medium text-slate-600 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-indigo-500 dark:text-slate-400 dark:hover:text-slate-100"
          >
            {open ? 'Hide the stories' : `The ${week.key_points.length} stories`}
            <ChevronDown aria-hidden="true" className={`h-3.5 w-3.5 transition-transform ${open ? 'rotate-180' : ''}`} />
          </button>
          {summaryLink('shrink-0 text-xs')}
          {dismissButton('h-7 w-7')}
        </div>
        {open && (
          <div id="feed-key-points-list" className="pb-3">
            <KeyPointList points={week.key_points} />
          </div>
        )}
      </section>
    );
  }
  return (
    <Card role="region" aria-labelledby="feed-key-points" className="mb-3">
      <div className="flex items-start justify-between gap-3">
        <div>
          <h2 id="feed-key-points" className="text-lg font-semibold">
            All You Need to Know
          </h2>
          <p className="text-xs text-slate-500 dark:text-slate-400">{dateRange(week)}</p>
        </div>
        {dismissButton()}
      </div>
      <KeyPointList points={week.key_points} />
      {summaryLink('mt-3 inline-block text-sm')}
    </Card>
  );
}
