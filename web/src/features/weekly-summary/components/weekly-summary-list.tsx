import { BookOpen, CalendarRange, Newspaper } from 'lucide-react';
import { Link } from 'react-router';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { StateMessage } from '@/components/ui/state-message';
import { Tabs } from '@/components/ui/tabs';
import { paths } from '@/config/paths';
import { useWeeklySummaries } from '@/features/weekly-summary/api/get-weekly-summaries';
import { dateRange } from '@/features/weekly-summary/date-range';
import { DEFAULT_SUMMARY_TITLE } from '@/features/weekly-summary/summary-title';
import type { WeeklySummary } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';
import { formatDate } from '@/lib/relative-time';

function ListView({ summaries }: { summaries: WeeklySummary[] }) {
  return (
    <ul className="flex flex-col gap-4">
      {summaries.map((s) => (
        <li key={s.id}>
          <Card>
            <h2 className="text-lg font-semibold">
              <Link to={paths.weeklySummaryDetail(s.id)} className="hover:underline">
                {s.title || DEFAULT_SUMMARY_TITLE}
              </Link>
            </h2>
            <p className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-slate-500 dark:text-slate-400">
              <span className="inline-flex items-center gap-1">
                <CalendarRange aria-hidden="true" className="h-3.5 w-3.5" /> {dateRange(s)}
              </span>
              <span className="inline-flex items-center gap-1">
                <Newspaper aria-hidden="true" className="h-3.5 w-3.5" /> {s.article_count} articles
              </span>
            </p>
            <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">{s.summary}</p>
          </Card>
        </li>
      ))}
    </ul>
  );
}

function CoversView({ summaries }: { summaries: WeeklySummary[] }) {
  return (
    <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Magazine Covers">
      {summaries.map((s, i) => (
        <li key={s.id}>
          <Link
            to={paths.weeklySummaryDetail(s.id)}
            className={`flex aspect-[3/4] flex-col justify-between rounded-xl p-5 text-white shadow-md transition-transform hover:-translate-y-0.5 ${
              ['bg-gradient-to-br from-indigo-600 to-purple-700', 'bg-gradient-to-br from-slate-800 to-slate-950', 'bg-gradient-to-br from-rose-600 to-orange-500'][i % 3]
            }`}
          >
            <span className="text-xs font-semibold uppercase tracking-[0.2em] opacity-80">Radar Weekly</span>
            {/* Every summary may carry the default title, so the week is what tells covers apart. */}
            <span className="flex flex-col gap-2">
              <span className="text-3xl font-bold leading-tight tracking-tight">Week of {formatDate(s.start_date)}</span>
              <span className="text-sm font-medium opacity-90">{s.title || DEFAULT_SUMMARY_TITLE}</span>
            </span>
            <span className="text-sm opacity-90">
              {dateRange(s)} · {s.article_count} articles
            </span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

export function WeeklySummaryList() {
  const { user } = useAuth();
  const summaries = useWeeklySummaries(user?.id);
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold sm:text-3xl">Weekly AI Summary</h1>
        <p className="mt-1 flex items-center gap-1 text-slate-600 dark:text-slate-400">
          <BookOpen aria-hidden="true" className="h-4 w-4" /> The week in AI, a 3-minute read.
        </p>
      </div>
      {summaries.isPending ? (
        <Spinner label="Loading weekly summaries" />
      ) : summaries.isError ? (
        <StateMessage title="Error">Failed to load weekly summaries. Please try again later.</StateMessage>
      ) : summaries.data.length === 0 ? (
        <StateMessage title="No Summaries">No weekly summaries are available yet.</StateMessage>
      ) : (
        <Tabs
          label="Summary layout"
          tabs={[
            { id: 'list', label: 'List View', content: <ListView summaries={summaries.data} /> },
            { id: 'covers', label: 'Magazine Covers', content: <CoversView summaries={summaries.data} /> },
          ]}
        />
      )}
    </div>
  );
}
