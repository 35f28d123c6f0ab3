import { Keyboard } from 'lucide-react';
import type { ComponentProps } from 'react';

/** The help's trigger, drawn the same before and after the dialog's code has arrived. */
export function KeysHelpButton(props: ComponentProps<'button'>) {
  return (
    <button
      type="button"
      data-action="keys-help"
      aria-label="Keyboard shortcuts"
      title="Keyboard shortcuts (?)"
      className="inline-flex h-9 w-9 items-center justify-center rounded-md text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
      {...props}
    >
      <Keyboard aria-hidden="true" className="h-4 w-4" />
    </button>
  );
}
