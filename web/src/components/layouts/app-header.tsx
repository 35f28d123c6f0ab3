import { Radar, Tv } from 'lucide-react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { paths, type AppView } from '@/config/paths';
import { useAuth } from '@/lib/auth';
import { startCheckout } from '@/lib/checkout';
import { AlertsBell } from './alerts-bell';
import { DarkModeToggle } from './dark-mode-toggle';
import { HeaderSearch } from './header-search';
import { UserMenu } from './user-menu';

/**
 * The header of every signed-in page, one row at every width, with the search box. The test
 * checkout shows here on wide screens (docs/product.md §2) and moves into the user menu on small ones.
 */
export function AppHeader({ view }: { view?: AppView }) {
  const { user, isSubscriber, subscriptionKnown } = useAuth();
  return (
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur dark:border-slate-800 dark:bg-slate-950/95">
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded-md focus:bg-indigo-600 focus:px-3 focus:py-2 focus:text-white">
        Skip to content
      </a>
      <div className="relative mx-auto flex h-14 max-w-6xl items-center gap-1 px-2.5 sm:gap-3 sm:px-4 lg:px-6">
        <Link to={paths.app} className="flex shrink-0 items-center gap-2 text-lg font-bold tracking-tight lg:w-44">
          <Radar aria-hidden="true" className="h-6 w-6 text-indigo-600" />
          <span>{isSubscriber ? 'Radar Premium' : 'Radar'}</span>
        </Link>
        {/* Searching needs an account; on a phone the box is an icon pushed to the right. */}
        {user && <HeaderSearch />}
        <div className={`${user ? 'sm:ml-auto' : 'ml-auto'} flex items-center gap-0.5 sm:gap-2`}>
          {view === 'drops' && (
            <Link to={paths.tvMode} className={buttonClass('outline', 'sm', 'px-1.5 sm:px-3')} aria-label="TV mode">
              <Tv aria-hidden="true" className="h-4 w-4" />
              <span className="hidden sm:inline">TV</span>
            </Link>
          )}
          {user && subscriptionKnown && !isSubscriber && (
            <>
              <Link to={paths.subscribe} className={buttonClass('primary', 'sm', 'px-2 sm:px-3')}>
                Subscribe Now
              </Link>
              <span className="hidden md:block">
                <button type="button" className={buttonClass('outline', 'sm')} onClick={() => void startCheckout()} title="Start a test checkout">
                  Test checkout ({user.id.slice(0, 8)})
                </button>
              </span>
            </>
          )}
          {user && <AlertsBell />}
          <DarkModeToggle />
          <UserMenu />
        </div>
      </div>
    </header>
  );
}
