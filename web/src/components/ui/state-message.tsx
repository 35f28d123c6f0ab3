import type { ReactNode } from 'react';

/** The empty, error and sign-in states of the list views. */
export function StateMessage({ title, children, action }: { title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-3 px-4 py-16 text-center">
      <h2 className="text-lg font-semibold">{title}</h2>
      {children && <div className="max-w-md text-sm text-slate-600 dark:text-slate-400">{children}</div>}
      {action}
    </div>
  );
}
