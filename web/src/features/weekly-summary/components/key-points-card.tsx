import { X } from 'lucide-react';
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
 * the feed is what the reader came for.
 */
export function KeyPointsCard() {
  const { user, isSubscriber } = useAuth();
  const summaries = useWeeklySummaries(isSubscriber ? user?.id : null);
  const [dismissed, setDismissed] = useState(() => localStorage.getItem(KEY_POINTS_DISMISSED_KEY));
  const week = summaries.data ? keyPointsCardFor(summaries.data, new Date(), dismissed) : null;
  if (!week?.key_points) return null;
  const dismiss = () => {
    localStorage.setItem(KEY_POINTS_DISMISSED_KEY, week.id);
    setDismissed(week.id);
  };
  return (
    <Card role="region" aria-labelledby="feed-key-points" className="mb-3">
      <div className="flex items-start justify-between gap-3">
        <div>
          <h2 id="feed-key-points" className="text-lg font-semibold">
            All You Need to Know
          </h2>
          <p className="text-xs text-slate-500 dark:text-slate-400">{dateRange(week)}</p>
        </div>
        <Button variant="ghost" size="icon" aria-label="Dismiss All You Need to Know" onClick={dismiss}>
          <X aria-hidden="true" className="h-4 w-4" />
        </Button>
      </div>
      <KeyPointList points={week.key_points} />
      <Link to={paths.weeklySummaryDetail(week.id)} className="mt-3 inline-block text-sm font-medium text-indigo-600 hover:underline dark:text-indigo-400">
        Read the weekly summary
      </Link>
    </Card>
  );
}
