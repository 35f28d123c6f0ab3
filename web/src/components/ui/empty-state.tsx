import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';

/** A designed empty state: an icon, the title, one line of explanation and the next action. */
export function EmptyState({ icon: Icon, title, children, action }: { icon: LucideIcon; title: ReactNode; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-3 px-4 py-16 text-center" data-testid="empty-state">
      <span className="inline-flex h-14 w-14 items-center justify-center rounded-full bg-indigo-50 text-indigo-600 dark:bg-indigo-950 dark:text-indigo-300">
        <Icon aria-hidden="true" className="h-7 w-7" />
      </span>
      <h2 className="text-lg font-semibold">{title}</h2>
      {children && <p className="max-w-sm text-sm text-slate-600 dark:text-slate-400">{children}</p>}
      {action}
    </div>
  );
}
