// The link in an alert's or the weekly summary's e-mail: stops those mails without signing in. A click, not
// the page's opening, stops them, so a mail scanner that opens links changes nothing.
import { useMutation } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { Button, buttonClass } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { unsubscribe } from '@/features/alerts/api/alerts';
import { ApiError } from '@/lib/api-client';

export function UnsubscribePage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const stop = useMutation({ mutationFn: () => unsubscribe(token) });

  return (
    <Card className="mx-auto max-w-md">
      <h1 className="text-xl font-bold">Stop these e-mails</h1>
      {stop.isSuccess ? (
        <p className="mt-3 text-sm" role="status">
          You will get no more e-mails of {stop.data.stopped}. Turn them on again, or change what else Radar sends you, on the{' '}
          <Link to={paths.alerts} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
            Alerts
          </Link>{' '}
          and{' '}
          <Link to={paths.profile} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
            Profile
          </Link>{' '}
          pages.
        </p>
      ) : (
        <>
          <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">This stops the e-mails this link came with: an alert's, or the weekly summary's. You do not need to sign in.</p>
          {stop.isError && (
            <p role="alert" className="mt-3 text-sm text-red-700 dark:text-red-400">
              {stop.error instanceof ApiError ? (stop.error.detail ?? stop.error.message) : String(stop.error)}
            </p>
          )}
          <div className="mt-4 flex gap-2">
            <Button onClick={() => stop.mutate()} disabled={!token || stop.isPending}>
              Stop these e-mails
            </Button>
            <Link to={paths.landing} className={buttonClass('outline')}>
              Go to Radar
            </Link>
          </div>
        </>
      )}
    </Card>
  );
}
