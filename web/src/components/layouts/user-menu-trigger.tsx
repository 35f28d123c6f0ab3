import { ChevronDown, CircleUserRound } from 'lucide-react';
import type { ComponentProps } from 'react';

/** The user menu's trigger, drawn the same before and after the menu's code has arrived. */
export function UserMenuButton(props: ComponentProps<'button'>) {
  return (
    <button
      type="button"
      aria-label="User menu"
      className="inline-flex h-9 items-center gap-1 rounded-md px-2 hover:bg-slate-100 dark:hover:bg-slate-800"
      {...props}
    >
      <CircleUserRound aria-hidden="true" className="h-5 w-5" />
      <ChevronDown aria-hidden="true" className="hidden h-4 w-4 sm:block" />
    </button>
  );
}
