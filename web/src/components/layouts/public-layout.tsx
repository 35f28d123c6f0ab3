import { Radar } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { DarkModeToggle } from './dark-mode-toggle';

/** Pages for visitors: landing, register, password pages. */
export function PublicLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col">
      <header className="border-b border-slate-200 dark:border-slate-800">
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded-md focus:bg-indigo-600 focus:px-3 focus:py-2 focus:text-white">
          Skip to content
        </a>
        <div className="mx-auto flex max-w-6xl items-center gap-2 px-4 py-3">
          <Link to={paths.landing} className="flex items-center gap-2 text-lg font-bold">
            <Radar aria-hidden="true" className="h-6 w-6 text-indigo-600" />
            Radar
          </Link>
          <nav aria-label="Account" className="ml-auto flex items-center gap-2">
            <Link to={`${paths.landing}#sign-in`} className={buttonClass('ghost', 'sm')}>
              Sign In
            </Link>
            <Link to={paths.register} className={buttonClass('primary', 'sm')}>
              Sign Up
            </Link>
            <DarkModeToggle />
          </nav>
        </div>
      </header>
      <main id="main" className="mx-auto flex w-full max-w-6xl flex-1 flex-col px-4 py-8">{children}</main>
      <footer className="border-t border-slate-200 py-6 text-center text-sm text-slate-500 dark:border-slate-800 dark:text-slate-400">
        © {new Date().getFullYear()} Radar · AI news for professionals
      </footer>
    </div>
  );
}
