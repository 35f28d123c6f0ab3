import * as Dialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import { useState } from 'react';
import { LIST_KEYS, useListKeysEnabled } from '@/features/news/list-keys';
import type { DeferredProps } from '@/components/ui/deferred';
import { KeysHelpButton } from './keys-help-trigger';

const kbd = 'inline-flex min-w-7 justify-center rounded border border-slate-300 bg-slate-50 px-1.5 py-0.5 font-mono text-xs dark:border-slate-600 dark:bg-slate-800';

/**
 * The keyboard help (`?`, or this button): every key of the table and the switch that turns
 * the single-key shortcuts off (WCAG 2.1.4), reachable with them off too.
 */
export default function ListKeysHelpContent({ openedWith }: DeferredProps) {
  const [open, setOpen] = useState(openedWith !== undefined);
  const [on, setOn] = useListKeysEnabled();
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <KeysHelpButton />
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/50" />
        <Dialog.Content className="fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[calc(100%-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl bg-white p-6 shadow-xl dark:bg-slate-900">
          <div className="flex items-start justify-between gap-4">
            <Dialog.Title className="text-lg font-bold">Keyboard shortcuts</Dialog.Title>
            <Dialog.Close aria-label="Close" className="rounded-md p-1 hover:bg-slate-100 dark:hover:bg-slate-800">
              <X aria-hidden="true" className="h-4 w-4" />
            </Dialog.Close>
          </div>
          <Dialog.Description className="mt-1 text-sm text-slate-600 dark:text-slate-400">
            The terminal reader's keys, in the feed and the other lists; a key acts on the story that has focus.
          </Dialog.Description>
          <button
            type="button"
            aria-pressed={on}
            onClick={() => setOn(!on)}
            className="mt-4 inline-flex items-center gap-2 rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-800"
          >
            Single-key shortcuts: {on ? 'on' : 'off'}
          </button>
          <dl className={`mt-4 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm ${on ? '' : 'opacity-60'}`}>
            {LIST_KEYS.map(({ command, keys, help }) => (
              <div key={command} className="contents">
                <dt className="flex gap-1">
                  {keys.map((key) => (
                    <kbd key={key} className={kbd}>
                      {key}
                    </kbd>
                  ))}
                </dt>
                <dd className="first-letter:uppercase">{help}</dd>
              </div>
            ))}
          </dl>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
