import type { ReactNode } from 'react';
import type { AppView } from '@/config/paths';
import { OfflineStatus } from '@/lib/offline';
import { AppHeader } from './app-header';
import { BottomTabs, useUnreadTitle, ViewRail } from './view-nav';

/**
 * Every signed-in page: the one-row header, then one content column aligned with the
 * header's logo column, with the views in a rail beside it on wide screens and in a bottom
 * bar on phones.
 */
export function AppShell({ view, wide = false, children }: { view?: AppView; wide?: boolean; children: ReactNode }) {
  useUnreadTitle();
  return (
    <div className="min-h-screen">
      <AppHeader view={view} />
      <OfflineStatus />
      <div className="mx-auto flex w-full max-w-6xl gap-8 px-3 sm:px-4 lg:px-6">
        <ViewRail view={view} />
        <main id="main" className={`min-w-0 flex-1 ${wide ? 'max-w-4xl' : 'max-w-2xl'} pb-20 pt-4 sm:pt-6 lg:pb-10`}>
          {children}
        </main>
      </div>
      <BottomTabs view={view} />
    </div>
  );
}
