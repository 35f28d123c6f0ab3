import { Radar, Tv } from 'lucide-react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { appViewPath, paths, type AppView } from '@/config/paths';
import { useAuth } from '@/lib/auth';
import { startCheckout } from '@/lib/checkout';
import { DarkModeToggle } from './dark-mode-toggle';
import { UserMenu } from './user-menu';

const TABS: { view: AppView; label: string; signedInOnly: boolean }[] = [
  { view: 'feed', label: 'Feed', signedInOnly: false },
  { view: 'drops', label: 'Drops', signedInOnly: false },
  { view: 'favorites', label: 'Favs', signedInOnly: true },
  { view: 'read', label: 'Read', signedInOnly: true },
  { view: 'trash', label: 'Trash', signedInOnly: true },
  { view: 'shared', label: 'Shared', signedInOnly: true },
];

/** The header of every signed-in page; `view` is set on /app, where the tabs mark the active one. */
export function AppHeader({ view }: { view?: AppView }) {
  const { user, isSubscriber, subscriptionKnown } = useAuth();
  const tabs = TABS.filter((tab) => !tab.signedInOnly || user);
  return (
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur dark:border-slate-800 dark:bg-slate-950/95">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded-md focus:bg-indigo-600 focus:px-3 focus:py-2 focus:text-white">
        Skip to content
      </a>
      <div className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-3 gap-y-2 px-3 py-2 sm:px-4">
        <Link to={paths.app} className="flex items-center gap-2 text-lg font-bold">
          <Radar aria-hidden="true" className="h-6 w-6 text-indigo-600" />
          <span>{isSubscriber ? 'Radar Premium' : 'Radar'}</span>
        </Link>
        <div className="ml-auto flex items-center gap-1 sm:gap-2">
          {view === 'drops' && (
            <Link to={paths.tvMode} className={buttonClass('outline', 'sm')} aria-label="TV mode">
              <Tv aria-hidden="true" className="h-4 w-4" />
              <span className="hidden sm:inline">TV</span>
            </Link>
          )}
          {user && subscriptionKnown && !isSubscriber && (
            <>
              <Link to={paths.subscribe} className={buttonClass('primary', 'sm')}>
                Subscribe Now
              </Link>
              <span className="hidden md:block">
                <button type="button" className={buttonClass('outline', 'sm')} onClick={() => void startCheckout()} title="Start a test checkout">
                  Test checkout ({user.id.slice(0, 8)})
                </button>
              </span>
            </>
          )}
          <DarkModeToggle />
          <UserMenu />
        </div>
        <nav aria-label="Views" className="order-last w-full overflow-x-auto">
          <ul className="flex gap-0.5 sm:gap-1">
            {tabs.map((tab) => (
              <li key={tab.view}>
                <Link
                  to={appViewPath(tab.view)}
                  aria-current={view === tab.view ? 'page' : undefined}
                  className={`inline-block whitespace-nowrap rounded-md px-2.5 py-1.5 text-sm font-medium sm:px-3 ${
                    view === tab.view
                      ? 'bg-indigo-600 text-white'
                      : 'text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800'
                  }`}
                >
                  {tab.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
    </header>
  );
}
