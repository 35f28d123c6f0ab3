import type { ReactNode } from 'react';
import { AppHeader } from './app-header';

/** A signed-in page: the header, then a centred column. */
export function PageLayout({ children, wide = false }: { children: ReactNode; wide?: boolean }) {
  return (
    <div className="min-h-screen">
      <AppHeader />
      <main id="main" className={`mx-auto w-full ${wide ? 'max-w-6xl' : 'max-w-4xl'} px-4 py-6`}>{children}</main>
    </div>
  );
}
