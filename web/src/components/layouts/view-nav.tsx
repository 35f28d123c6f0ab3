// The views of /app: a rail beside the content column on wide screens, a bar at the bottom
// of the screen on phones (where the thumb is), so the header stays one row.
import { CheckCheck, Heart, Newspaper, Share2, Trash2, Zap, type LucideIcon } from 'lucide-react';
import { useEffect } from 'react';
import { Link, useLocation } from 'react-router';
import { appViewPath, VIEW_LABELS, type AppView } from '@/config/paths';
import { useUnread } from '@/lib/unread';
import { useAuth } from '@/lib/auth';

const TABS = (
  [
  { view: 'feed', icon: Newspaper, signedInOnly: false },
  { view: 'drops', icon: Zap, signedInOnly: false },
  { view: 'favorites', icon: Heart, signedInOnly: true },
  { view: 'read', icon: CheckCheck, signedInOnly: true },
  { view: 'trash', icon: Trash2, signedInOnly: true },
  { view: 'shared', icon: Share2, signedInOnly: true },
  ] as { view: AppView; icon: LucideIcon; signedInOnly: boolean }[]
).map((tab) => ({ ...tab, label: VIEW_LABELS[tab.view] }));

/** docs/product.md §2: Feed and Drops always; Favs, Read, Trash and Shared only when signed in. */
function useTabs() {
  const { user } = useAuth();
  return TABS.filter((tab) => !tab.signedInOnly || user);
}

/** "(12) Feed · Radar": the page title starts with the unread count, as readers' tabs do. */
const COUNTED = /^\(\d+\) /;

/**
 * Puts the unread count before the page's title while a signed-in page is shown. It runs
 * after the route has set its own title (the route's effect comes first in the tree), and
 * again whenever the address or the count changes.
 */
export function useUnreadTitle() {
  const unread = useUnread();
  const { pathname, search } = useLocation();
  useEffect(() => {
    const bare = document.title.replace(COUNTED, '');
    document.title = unread ? `(${unread}) ${bare}` : bare;
    return () => {
      document.title = document.title.replace(COUNTED, '');
    };
  }, [unread, pathname, search]);
}

/** The Feed tab's count of what is left to read. */
function UnreadBadge({ compact = false }: { compact?: boolean }) {
  const unread = useUnread();
  if (!unread) return null;
  return (
    <span
      data-testid="unread-count"
      data-first-paint="omit"
      className={
        compact
          ? 'absolute -top-1 left-1/2 ml-1.5 min-w-4 rounded-full bg-indigo-600 px-1 text-center text-2xs font-semibold leading-4 text-white'
          : 'ml-auto rounded-full bg-slate-100 px-2 text-xs font-semibold tabular-nums text-slate-700 dark:bg-slate-800 dark:text-slate-200'
      }
    >
      {unread}
      <span className="sr-only"> unread</span>
    </span>
  );
}

export function ViewRail({ view }: { view?: AppView }) {
  const tabs = useTabs();
  return (
    <nav aria-label="Views" className="sticky top-14 hidden h-fit w-44 shrink-0 py-6 lg:block">
      <ul className="flex flex-col gap-0.5">
        {tabs.map(({ view: v, label, icon: Icon }) => (
          <li key={v}>
            <Link
              to={appViewPath(v)}
              aria-current={view === v ? 'page' : undefined}
              className={`flex items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium ${
                view === v
                  ? 'bg-indigo-50 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-200'
                  : 'text-slate-700 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800'
              }`}
            >
              <Icon aria-hidden="true" className="h-4 w-4" />
              {label}
              {v === 'feed' && <UnreadBadge />}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

export function BottomTabs({ view }: { view?: AppView }) {
  const tabs = useTabs();
  return (
    <nav
      aria-label="Views"
      className="fixed inset-x-0 bottom-0 z-40 border-t border-slate-200 bg-white/95 pb-[env(safe-area-inset-bottom)] backdrop-blur lg:hidden dark:border-slate-800 dark:bg-slate-950/95"
    >
      <ul className="mx-auto flex h-14 max-w-xl">
        {tabs.map(({ view: v, label, icon: Icon }) => (
          <li key={v} className="flex-1">
            <Link
              to={appViewPath(v)}
              aria-current={view === v ? 'page' : undefined}
              className={`flex h-full flex-col items-center justify-center gap-0.5 text-2xs font-medium ${
                view === v ? 'text-indigo-700 dark:text-indigo-300' : 'text-slate-600 dark:text-slate-400'
              }`}
            >
              <span className="relative">
                <Icon aria-hidden="true" className="h-5 w-5" />
                {v === 'feed' && <UnreadBadge compact />}
              </span>
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
