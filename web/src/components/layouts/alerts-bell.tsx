import { Bell } from 'lucide-react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { useAlertList } from '@/lib/alerts';

/**
 * The header's way to the alerts, with the count of matches not seen yet. From 640 px up:
 * on a phone the header keeps to one row, and the user menu's Alerts item carries the count.
 */
export function AlertsBell() {
  const { data } = useAlertList();
  const unseen = data?.unseen ?? 0;
  const label = unseen > 0 ? `Alerts, ${unseen} new` : 'Alerts';
  return (
    <span className="hidden sm:block">
      <Link to={paths.alerts} className={buttonClass('ghost', 'icon', 'relative')} aria-label={label} title={label}>
        <Bell aria-hidden="true" className="h-5 w-5" />
        {unseen > 0 && (
          <span
            aria-hidden="true"
            data-testid="alerts-badge"
            data-first-paint="omit"
            className="absolute -right-0.5 -top-0.5 min-w-[1.125rem] rounded-full bg-red-600 px-1 text-center text-[0.6875rem] font-semibold leading-[1.125rem] text-white"
          >
            {unseen > 99 ? '99+' : unseen}
          </span>
        )}
      </Link>
    </span>
  );
}
