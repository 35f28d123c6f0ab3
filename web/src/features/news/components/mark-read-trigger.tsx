import { CheckCheck } from 'lucide-react';
import { useEffect, useRef, type ComponentProps } from 'react';

/** The menus on screen, each as how to open it (there is at most one: the feed's). */
const openers = new Set<() => void>();

/** Opens "Mark feed as read" (the `A` key) when it is on screen; answers whether it was. */
export function openMarkReadMenu(): boolean {
  openers.forEach((open) => open());
  return openers.size > 0;
}

/** Lets the `A` key open this menu for as long as it is on screen (`open` null: not at all). */
export function useOpener(open: (() => void) | null) {
  const latest = useRef(open);
  useEffect(() => {
    latest.current = open;
  });
  const on = open !== null;
  useEffect(() => {
    if (!on) return;
    const opener = () => latest.current?.();
    openers.add(opener);
    return () => {
      openers.delete(opener);
    };
  }, [on]);
}

/** The menu's trigger, drawn the same before and after the menu's code has arrived. */
export function MarkReadButton(props: ComponentProps<'button'>) {
  return (
    <button
      type="button"
      data-action="mark-feed-read"
      className="inline-flex h-9 items-center gap-1.5 rounded-md px-2 text-xs font-medium text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
      {...props}
    >
      <CheckCheck aria-hidden="true" className="h-4 w-4" />
      <span className="sr-only sm:not-sr-only">Mark feed as read</span>
    </button>
  );
}
