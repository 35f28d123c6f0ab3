import { CheckCircle2, Bell, Sparkles } from 'lucide-react';
import { Link } from 'react-router';
import { Button, buttonClass } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { useWaitlistStatus } from '@/features/waitlist/api/get-waitlist-status';
import { useJoinWaitlist } from '@/features/waitlist/api/join-waitlist';
import { useAuth } from '@/lib/auth';
import { formatDate } from '@/lib/relative-time';

const BENEFITS = [
  'Unlimited news access',
  'Priority updates',
  'Exclusive AI insights',
  'Enhanced feed customization',
  'Advanced filtering options',
];

export function WaitlistPanel() {
  const { user } = useAuth();
  const status = useWaitlistStatus(user?.id);
  const join = useJoinWaitlist();

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-bold sm:text-3xl">Thank You for Your Interest</h1>
        <Link to={paths.app} className={buttonClass('outline', 'sm', 'ml-auto')}>
          Back to Feed
        </Link>
      </div>
      <p className="text-slate-600 dark:text-slate-400">
        Premium subscriptions are not open yet. Join the waitlist and we will tell you as soon as they are.
      </p>
      <div className="grid gap-6 md:grid-cols-[2fr_1fr]">
        <Card>
          {status.isPending ? (
            <Spinner label="Loading waitlist status" />
          ) : status.data?.isOnWaitlist ? (
            <div className="flex flex-col gap-2" data-testid="waitlist-joined">
              <CheckCircle2 aria-hidden="true" className="h-8 w-8 text-green-600" />
              <h2 className="text-xl font-semibold">Successfully Joined!</h2>
              <p className="text-slate-600 dark:text-slate-400">
                You joined the waitlist{status.data.joinedAt ? ` on ${formatDate(status.data.joinedAt)}` : ''}.
              </p>
            </div>
          ) : (
            <div className="flex flex-col gap-3">
              <Bell aria-hidden="true" className="h-8 w-8 text-indigo-600" />
              <h2 className="text-xl font-semibold">Get Notified</h2>
              <p className="text-slate-600 dark:text-slate-400">
                We will send a note to <strong>{user?.email}</strong> when premium subscriptions open.
              </p>
              <Button className="self-start" onClick={() => join.mutate()} disabled={join.isPending}>
                {join.isPending ? 'Joining…' : 'Join Waitlist'}
              </Button>
            </div>
          )}
        </Card>
        <Card>
          <h2 className="flex items-center gap-2 font-semibold">
            <Sparkles aria-hidden="true" className="h-5 w-5 text-indigo-600" /> Limited Access
          </h2>
          <ul className="mt-3 flex list-disc flex-col gap-1.5 pl-5 text-sm text-slate-700 dark:text-slate-300">
            {BENEFITS.map((b) => (
              <li key={b}>{b}</li>
            ))}
          </ul>
        </Card>
      </div>
    </div>
  );
}
