import type { ReactNode } from 'react';
import { AppShell } from './app-shell';

/** A signed-in page other than /app: the same shell, no view marked as current. */
export function PageLayout({ children, wide = false }: { children: ReactNode; wide?: boolean }) {
  return <AppShell wide={wide}>{children}</AppShell>;
}
