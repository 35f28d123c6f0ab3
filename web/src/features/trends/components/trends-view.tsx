import { TrendingDown, TrendingUp } from 'lucide-react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { StateMessage } from '@/components/ui/state-message';
import { paths } from '@/config/paths';
import { useTrends } from '@/features/trends/api/get-trends';
import { WeeklyChart } from '@/features/trends/components/weekly-chart';
import type { Trend } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';

/** How a change reads: "×13" rising, "−82%" falling. */
export function changeLabel(change: number): string {
  if (change >= 1) return `×${change >= 10 ? Math.round(change) : change.toFixed(1)}`;
  return `−${Math.round((1 - change) * 100)}%`;
}

function TrendCard({ trend }: { trend: Trend }) {
  const rising = trend.change >= 1;
  return (
    <Card className="flex flex-col gap-3" data-testid="trend">
      <div className="flex items-start gap-3">
        <div className="min-w-0 flex-1">
          <h3 className="truncate font-semibold">{trend.term}</h3>
          <p className="text-xs text-slate-500 dark:text-slate-400">
            {trend.kind === 'name' ? 'Name' : 'Topic'} · {trend.thisWeek} this week, {Math.round(trend.before * 10) / 10} a week before ·{' '}
            <span className={rising ? 'font-medium text-emerald-700 dark:text-emerald-400' : 'font-medium text-rose-700 dark:text-rose-400'}>
              {changeLabel(trend.change)}
            </span>
          </p>
        </div>
        <WeeklyChart weeks={trend.weeks} label={trend.term} />
      </div>
      {trend.stories.length > 0 && (
        <ul className="flex flex-col gap-1 text-sm">
          {trend.stories.map((s) => (
            <li key={s.id} className="truncate">
              {s.url ? (
                <a href={s.url} target="_blank" rel="noreferrer" className="text-indigo-700 hover:underline dark:text-indigo-300">
                  {s.title}
                </a>
              ) : (
                <span>{s.title}</span>
              )}
              <span className="text-slate-500 dark:text-slate-400"> · {s.source ?? 'Source'}</span>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function TrendList({ title, icon, trends, empty }: { title: string; icon: React.ReactNode; trends: Trend[]; empty: string }) {
  return (
    <section className="flex flex-col gap-3" aria-label={title}>
      <h2 className="flex items-center gap-2 text-lg font-semibold">
        {icon} {title}
      </h2>
      {trends.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">{empty}</p>
      ) : (
        <ul className="flex flex-col gap-3">
          {trends.map((t) => (
            <li key={t.term}>
              <TrendCard trend={t} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function TrendsSkeleton() {
  return (
    <div className="grid gap-6 md:grid-cols-2" data-testid="trends-skeleton" aria-hidden="true">
      {[0, 1].map((col) => (
        <div key={col} className="flex flex-col gap-3">
          {[0, 1, 2].map((i) => (
            <div key={i} className="h-28 animate-pulse rounded-xl border border-slate-200 bg-slate-100 dark:border-slate-800 dark:bg-slate-800/50" />
          ))}
        </div>
      ))}
    </div>
  );
}

export function TrendsView() {
  const { user } = useAuth();
  const trends = useTrends(user?.id);
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold sm:text-3xl">Trends</h1>
        <p className="mt-1 text-slate-600 dark:text-slate-400">
          What the news mentions more or less this week than in the four weeks before, by change, not by size.
        </p>
      </div>
      {trends.isPending ? (
        <TrendsSkeleton />
      ) : trends.isError ? (
        <StateMessage
          title="Trends could not be loaded"
          action={
            <button type="button" className={buttonClass('primary')} onClick={() => void trends.refetch()}>
              Try again
            </button>
          }
        >
          Check your connection and try again; if it keeps failing, the server may be restarting, so wait a minute.
        </StateMessage>
      ) : (
        <>
          <div className="grid gap-6 md:grid-cols-2">
            <TrendList
              title="Rising"
              icon={<TrendingUp aria-hidden="true" className="h-5 w-5 text-emerald-600" />}
              trends={trends.data.rising}
              empty="Nothing is rising this week yet."
            />
            <TrendList
              title="Falling"
              icon={<TrendingDown aria-hidden="true" className="h-5 w-5 text-rose-600" />}
              trends={trends.data.falling}
              empty="Nothing is falling this week."
            />
          </div>
          {!trends.data.subscriber && (
            <p className="text-center text-sm text-slate-600 dark:text-slate-400">
              Free accounts see the top {trends.data.limit} of each list.{' '}
              <Link to={paths.subscribe} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
                Get Premium
              </Link>{' '}
              for more.
            </p>
          )}
        </>
      )}
    </div>
  );
}
