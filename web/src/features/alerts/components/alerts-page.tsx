// Custom news alerts (docs/product.md §15): save a search, choose how often its e-mail may
// come, see what the alerts found. The server owns the rules (how many alerts a reader may
// keep, which items match); this page draws its answers and says its refusals as they are.
import { BellRing, Trash2 } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { Button, buttonClass } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { EmptyState } from '@/components/ui/empty-state';
import { Field } from '@/components/ui/field';
import { Spinner } from '@/components/ui/spinner';
import { StateMessage } from '@/components/ui/state-message';
import { paths } from '@/config/paths';
import {
  useAddAlert,
  useAlertMatches,
  useAlerts,
  useChangeAlert,
  useRemoveAlert,
  type Alert,
  type AlertInterval,
} from '@/features/alerts/api/alerts';
import { ApiError } from '@/lib/api-client';
import { toast } from '@/lib/toast';

const INTERVALS: { value: AlertInterval; label: string }[] = [
  { value: 'hourly', label: 'At most hourly' },
  { value: 'daily', label: 'At most daily' },
  { value: 'weekly', label: 'At most weekly' },
];

const selectClass = 'h-10 rounded-md border border-slate-300 bg-white px-2 text-sm dark:border-slate-700 dark:bg-slate-900';

/** The server's own words for a refusal, else the error. */
const reason = (error: unknown) => (error instanceof ApiError ? (error.detail ?? error.message) : String(error));

function AddAlert({ full, limit }: { full: boolean; limit: number }) {
  const [params] = useSearchParams();
  const [query, setQuery] = useState(params.get('q') ?? '');
  const [interval, setInterval] = useState<AlertInterval>('daily');
  const [email, setEmail] = useState(true);
  const add = useAddAlert();

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(
      { query, interval, email },
      {
        onSuccess: () => {
          setQuery('');
          toast({ title: 'Alert saved', description: `New stories matching “${query.trim()}” will be announced here.` });
        },
      },
    );
  };

  return (
    <Card>
      <form onSubmit={onSubmit} className="flex flex-col gap-3" aria-label="New alert">
        <Field label="Watch for" value={query} onChange={(e) => setQuery(e.target.value)} placeholder='e.g. "open weights" source:arxiv.org' required />
        <div className="flex flex-wrap items-center gap-4">
          <label className="flex items-center gap-2 text-sm">
            <span>E-mail</span>
            <select className={selectClass} value={interval} onChange={(e) => setInterval(e.target.value as AlertInterval)} aria-label="How often to e-mail">
              {INTERVALS.map((i) => (
                <option key={i.value} value={i.value}>
                  {i.label}
                </option>
              ))}
            </select>
          </label>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={email} onChange={(e) => setEmail(e.target.checked)} />
            Send me e-mails
          </label>
          <Button type="submit" disabled={add.isPending || !query.trim()} className="ml-auto">
            {add.isPending ? <Spinner label="Saving" /> : 'Save alert'}
          </Button>
        </div>
        {add.isError && (
          <p role="alert" className="text-sm text-red-700 dark:text-red-400" data-testid="alert-error">
            {reason(add.error)}
          </p>
        )}
        <p className="text-xs text-slate-500 dark:text-slate-400">
          {full ? `You keep ${limit} of ${limit} alerts.` : `You can keep ${limit} ${limit === 1 ? 'alert' : 'alerts'}.`} Only stories published after an alert is saved trigger it.
        </p>
      </form>
    </Card>
  );
}

function AlertRow({ alert }: { alert: Alert }) {
  const change = useChangeAlert();
  const remove = useRemoveAlert();
  const failed = (error: unknown) => toast({ title: 'Could not change the alert', description: reason(error), variant: 'destructive' });
  return (
    <li className="flex flex-wrap items-center gap-3 py-3" data-testid="alert-row">
      <div className="min-w-0 flex-1">
        <Link to={`${paths.app}?view=search&q=${encodeURIComponent(alert.query)}`} className="font-medium hover:underline">
          {alert.query}
        </Link>
        {alert.unseen > 0 && <span className="ml-2 text-xs font-semibold text-red-700 dark:text-red-400">{alert.unseen} new</span>}
      </div>
      <select
        className={selectClass}
        value={alert.interval}
        aria-label={`How often to e-mail about ${alert.query}`}
        onChange={(e) => change.mutate({ id: alert.id, interval: e.target.value as AlertInterval }, { onError: failed })}
      >
        {INTERVALS.map((i) => (
          <option key={i.value} value={i.value}>
            {i.label}
          </option>
        ))}
      </select>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={alert.email} onChange={(e) => change.mutate({ id: alert.id, email: e.target.checked }, { onError: failed })} />
        E-mail
      </label>
      <Button variant="ghost" size="icon" aria-label={`Delete the alert ${alert.query}`} onClick={() => remove.mutate(alert.id, { onError: failed })}>
        <Trash2 aria-hidden="true" className="h-4 w-4" />
      </Button>
    </li>
  );
}

function Matches() {
  const matches = useAlertMatches();
  if (matches.isPending) return <Spinner label="Loading what your alerts found" />;
  if (matches.isError)
    return (
      <StateMessage title="Error loading what your alerts found" action={<Button variant="outline" onClick={() => void matches.refetch()}>Try again</Button>}>
        {reason(matches.error)}
      </StateMessage>
    );
  if (matches.data.items.length === 0)
    return <p className="text-sm text-slate-600 dark:text-slate-400">Nothing yet: new stories that match your alerts will show here.</p>;
  return (
    <ul className="divide-y divide-slate-200 dark:divide-slate-800" aria-label="Found by your alerts">
      {matches.data.items.map((hit) => (
        <li key={`${hit.alertId}-${hit.item.id}`} className="py-3" data-testid="alert-hit">
          {hit.item.url ? (
            <a href={hit.item.url} target="_blank" rel="noreferrer" className="font-medium hover:underline">
              {hit.item.title}
            </a>
          ) : (
            <span className="font-medium">{hit.item.title}</span>
          )}
          <p className="text-xs text-slate-500 dark:text-slate-400">
            {hit.item.source && <span>{hit.item.source} · </span>}
            for “{hit.query}” · {new Date(hit.matchedAt).toLocaleString()}
            {!hit.seen && <span className="ml-1 font-semibold text-red-700 dark:text-red-400">new</span>}
          </p>
        </li>
      ))}
    </ul>
  );
}

export function AlertsPage() {
  const alerts = useAlerts();
  return (
    <>
      <h1 className="text-2xl font-bold sm:text-3xl">Custom News Alerts</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">Be told when a company, model or topic you follow is in the news.</p>
      {alerts.isPending && (
        <div className="mt-6" aria-busy="true">
          <Spinner label="Loading your alerts" />
        </div>
      )}
      {alerts.isError && (
        <StateMessage title="Error loading your alerts" action={<Button variant="outline" onClick={() => void alerts.refetch()}>Try again</Button>}>
          {reason(alerts.error)}
        </StateMessage>
      )}
      {alerts.data && (
        <div className="mt-6 flex flex-col gap-6">
          <AddAlert full={alerts.data.alerts.length >= alerts.data.limit} limit={alerts.data.limit} />
          <section aria-labelledby="alerts-heading">
            <h2 id="alerts-heading" className="text-lg font-semibold">
              Your alerts
            </h2>
            {alerts.data.alerts.length === 0 ? (
              <EmptyState icon={BellRing} title="No alerts yet">
                Save a search above, or search and choose “Watch this search”.
              </EmptyState>
            ) : (
              <ul className="divide-y divide-slate-200 dark:divide-slate-800">
                {alerts.data.alerts.map((a) => (
                  <AlertRow key={a.id} alert={a} />
                ))}
              </ul>
            )}
          </section>
          <section aria-labelledby="found-heading">
            <h2 id="found-heading" className="text-lg font-semibold">
              Found by your alerts
            </h2>
            <Matches />
          </section>
          {alerts.data.limit <= 1 && (
            <p className="text-sm text-slate-600 dark:text-slate-400">
              Subscribers keep more alerts.{' '}
              <Link to={paths.subscribe} className={buttonClass('outline', 'sm', 'ml-1')}>
                Subscribe Now
              </Link>
            </p>
          )}
        </div>
      )}
    </>
  );
}
