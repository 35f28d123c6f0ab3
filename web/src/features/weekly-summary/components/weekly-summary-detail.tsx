import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { StateMessage } from '@/components/ui/state-message';
import { paths } from '@/config/paths';
import { useWeeklySummary } from '@/features/weekly-summary/api/get-weekly-summary';
import { KeyPointList } from '@/features/weekly-summary/components/key-point-list';
import { dateRange } from '@/features/weekly-summary/date-range';
import { DEFAULT_SUMMARY_TITLE } from '@/features/weekly-summary/summary-title';
import { ApiError } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';
import { formatDate } from '@/lib/relative-time';

export function WeeklySummaryDetail({ id }: { id: string }) {
  const { user } = useAuth();
  const summary = useWeeklySummary(id, user?.id);
  const back = (
    <Link to={paths.weeklySummary} className="inline-flex items-center gap-1 text-sm font-medium text-indigo-600 hover:underline dark:text-indigo-400">
      <ArrowLeft aria-hidden="true" className="h-4 w-4" /> Back to all summaries
    </Link>
  );
  if (summary.isPending) return <Spinner label="Loading weekly summary" />;
  if (summary.isError) {
    const notFound = summary.error instanceof ApiError && summary.error.status === 404;
    return (
      <div className="flex flex-col gap-4">
        {back}
        {notFound ? (
          <StateMessage title="Not Found">Weekly summary not found.</StateMessage>
        ) : (
          <StateMessage title="Error">Failed to load weekly summary.</StateMessage>
        )}
      </div>
    );
  }
  const s = summary.data;
  return (
    <article className="flex min-w-0 flex-col gap-4 break-words">
      {back}
      <h1 className="text-2xl font-bold sm:text-4xl">{s.title || DEFAULT_SUMMARY_TITLE}</h1>
      <dl className="grid grid-cols-1 gap-2 text-sm text-slate-600 sm:grid-cols-3 dark:text-slate-400">
        <div>
          <dt className="font-medium text-slate-900 dark:text-slate-100">Week</dt>
          <dd>{dateRange(s)}</dd>
        </div>
        <div>
          <dt className="font-medium text-slate-900 dark:text-slate-100">Generated</dt>
          <dd>{formatDate(s.generated_date)}</dd>
        </div>
        <div>
          <dt className="font-medium text-slate-900 dark:text-slate-100">Articles</dt>
          <dd>{s.article_count}</dd>
        </div>
      </dl>
      {s.key_points && s.key_points.length > 0 && (
        <section aria-labelledby="key-points" className="rounded-lg border border-slate-200 p-4 dark:border-slate-700">
          <h2 id="key-points" className="text-lg font-semibold">
            All You Need to Know
          </h2>
          <KeyPointList points={s.key_points} />
        </section>
      )}
      <p className="rounded-lg bg-indigo-50 p-4 text-base font-medium dark:bg-indigo-950/40">{s.summary}</p>
      <div className="flex flex-col gap-3 leading-relaxed">
        {s.content.map((paragraph, i) => (
          <p key={i}>{paragraph}</p>
        ))}
      </div>
    </article>
  );
}
