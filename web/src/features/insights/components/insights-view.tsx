import { Lock, Sparkles } from 'lucide-react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { StateMessage } from '@/components/ui/state-message';
import { paths } from '@/config/paths';
import { useInsights } from '@/features/insights/api/get-insights';
import { isSubscriptionRequired } from '@/lib/api-client';
import type { Insights } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';
import { formatDate } from '@/lib/relative-time';

const percent = (share: number) => `${Math.round(share * 100)}%`;

/** Placeholders in the shape of the cards while the answer loads. */
function InsightsSkeleton() {
  return (
    <div className="grid gap-4 md:grid-cols-2" aria-busy="true" aria-label="Loading insights" data-testid="insights-skeleton">
      {[0, 1, 2, 3].map((i) => (
        <div key={i} className="h-40 animate-pulse rounded-xl bg-slate-200 dark:bg-slate-800" />
      ))}
    </div>
  );
}

/** A list of names with a count and a bar scaled to the largest. */
function Counts({ rows, label, heading }: { rows: { name: string; n: number }[]; label: string; heading: string }) {
  const max = Math.max(1, ...rows.map((r) => r.n));
  return (
    <>
    <h3 className="mt-4 text-xs font-semibold uppercase tracking-wide text-slate-500 dark:text-slate-400">{heading}</h3>
    <ul className="mt-2 flex flex-col gap-2" aria-label={label}>
      {rows.map((r) => (
        <li key={r.name} className="text-sm">
          <div className="flex justify-between">
            <span>{r.name}</span>
            <span className="text-slate-500 dark:text-slate-400">{r.n}</span>
          </div>
          <div className="mt-1 h-1.5 rounded bg-slate-100 dark:bg-slate-800">
            <div className="h-1.5 rounded bg-indigo-500" style={{ width: `${(r.n / max) * 100}%` }} />
          </div>
        </li>
      ))}
    </ul>
    </>
  );
}

function Comparison({ comparison }: { comparison: Insights['comparison'] }) {
  if (!comparison.shown) {
    return (
      <p className="mt-3 text-sm text-slate-600 dark:text-slate-400" data-testid="comparison-hidden">
        {comparison.hiddenReason}
      </p>
    );
  }
  return (
    <table className="mt-3 w-full text-sm" data-testid="comparison">
      <thead>
        <tr className="text-left text-slate-500 dark:text-slate-400">
          <th className="font-medium">Topic</th>
          <th className="font-medium">You</th>
          <th className="font-medium">All readers</th>
        </tr>
      </thead>
      <tbody>
        {comparison.topics.map((t) => (
          <tr key={t.topic}>
            <td>{t.topic}</td>
            <td>{percent(t.yours)}</td>
            <td>{percent(t.everyone)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function InsightsCards({ insights }: { insights: Insights }) {
  return (
    <div className="grid gap-4 md:grid-cols-2">
      <Card>
        <h2 className="font-semibold">What you read</h2>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
          {insights.reads === 0 ? 'Nothing read this week yet: open a story from your feed to start.' : `${insights.reads} ${insights.reads === 1 ? 'story' : 'stories'} this week.`}
        </p>
        {insights.topics.length > 0 && <Counts heading="By topic" label="Your reads by topic" rows={insights.topics.map((t) => ({ name: t.topic, n: t.reads }))} />}
        {insights.sources.length > 0 && <Counts heading="By source" label="Your reads by source" rows={insights.sources.map((s) => ({ name: s.source, n: s.reads }))} />}
      </Card>
      <Card>
        <h2 className="font-semibold">You and all readers</h2>
        <Comparison comparison={insights.comparison} />
      </Card>
      <Card>
        <h2 className="font-semibold">Biggest stories you missed</h2>
        {insights.missed.length === 0 ? (
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">You missed none of the week’s biggest stories.</p>
        ) : (
          <ol className="mt-3 flex list-decimal flex-col gap-2 pl-5 text-sm" aria-label="Stories you missed">
            {insights.missed.map((m) => (
              <li key={m.id}>
                {m.url ? (
                  <a href={m.url} target="_blank" rel="noreferrer" className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
                    {m.title}
                  </a>
                ) : (
                  <span className="font-medium">{m.title}</span>
                )}
                <span className="text-slate-500 dark:text-slate-400">
                  {' '}
                  · {m.source} · {m.outlets} {m.outlets === 1 ? 'outlet' : 'outlets'}
                  {m.readers != null && ` · ${m.readers} ${m.readers === 1 ? 'reader' : 'readers'}`}
                </span>
              </li>
            ))}
          </ol>
        )}
      </Card>
      <Card>
        <h2 className="font-semibold">Your resume this week</h2>
        {!insights.hasResume ? (
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
            Add your resume on your <Link to={paths.profile} className="text-indigo-600 hover:underline dark:text-indigo-400">profile</Link> to see which of its terms the week’s stories named.
          </p>
        ) : insights.resumeTerms.length === 0 ? (
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">None of your resume’s terms were in this week’s stories.</p>
        ) : (
          <ul className="mt-3 flex flex-wrap gap-2" aria-label="Resume terms matched">
            {insights.resumeTerms.map((t) => (
              <li key={t.term} className="rounded-full bg-indigo-100 px-2.5 py-0.5 text-sm text-indigo-800 dark:bg-indigo-900/50 dark:text-indigo-200">
                {t.term} · {t.items}
              </li>
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}

export function InsightsView() {
  const { user } = useAuth();
  const insights = useInsights(user?.id);
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-bold sm:text-3xl">Insights</h1>
        <p className="mt-1 flex items-center gap-1 text-slate-600 dark:text-slate-400">
          <Sparkles aria-hidden="true" className="h-4 w-4" />
          {insights.data ? `Your week: ${formatDate(insights.data.since)} – ${formatDate(insights.data.until)}` : 'Your week in reading.'}
        </p>
      </div>
      {insights.isPending ? (
        <InsightsSkeleton />
      ) : insights.isError ? (
        isSubscriptionRequired(insights.error) ? (
          <EmptyState
            icon={Lock}
            title="Premium Content"
            action={
              <Link to={paths.subscribe} className={buttonClass('primary')}>
                Subscribe Now
              </Link>
            }
          >
            Insights are for subscribers. Subscribe now to unlock them.
          </EmptyState>
        ) : (
          <StateMessage
            title="Error"
            action={
              <button type="button" className={buttonClass('outline')} onClick={() => void insights.refetch()}>
                Try again
              </button>
            }
          >
            Failed to load your insights. Check your connection and try again.
          </StateMessage>
        )
      ) : (
        <InsightsCards insights={insights.data} />
      )}
    </div>
  );
}
