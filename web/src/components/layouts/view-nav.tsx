// The views of /app: a rail beside the content column on wide screens, a bar at the bottom
// of the screen on phones (where the thumb is), so the header stays one row.
import { CheckCheck, Heart, Newspaper, Share2, Trash2, Zap, type LucideIcon } from 'lucide-react';
import { Link } from 'react-router';
import { appViewPath, VIEW_LABELS, type AppView } from '@/config/paths';
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
              <Icon aria-hidden="true" className="h-5 w-5" />
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
