// The link in an alert's e-mail: stops that alert's mails without signing in. A click, not
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
      <h1 className="text-xl font-bold">Stop alert e-mails</h1>
      {stop.isSuccess ? (
        <p className="mt-3 text-sm" role="status">
          You will get no more e-mails for the alert “{stop.data.query}”. It still shows new stories in Radar; delete it on the{' '}
          <Link to={paths.alerts} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
            Alerts page
          </Link>
          .
        </p>
      ) : (
        <>
          <p className="mt-3 text-sm text-slate-600 dark:text-slate-400">This stops the e-mails of the alert this link came with. You do not need to sign in.</p>
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
