import { useRef, type KeyboardEvent } from 'react';

// Moving focus the way Tab would, for widgets that take Tab over (a menu closes on Tab, and
// focus must go on from where the menu was opened, not fall back to the page).

const TABBABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Focuses the control after `from` in the page's tab order (`step` 1) or the one before it
 * (-1), skipping hidden controls and those inside `skip` (e.g. the closing menu); stays on
 * `from` when there is none.
 */
export function focusBeside(from: HTMLElement, step: 1 | -1, skip?: string) {
  const order = [...document.querySelectorAll<HTMLElement>(TABBABLE)].filter(
    (el) => el === from || (el.getClientRects().length > 0 && !(skip && el.closest(skip))),
  );
  const next = order[order.indexOf(from) + step] ?? from;
  next.focus();
}

/**
 * The WAI-ARIA menu pattern's Tab for a Radix menu, which keeps Tab inside: Tab (Shift+Tab)
 * closes the menu and focus goes on to the control after (before) its trigger. Spread
 * `onKeyDown` and `onCloseAutoFocus` on the menu's content and `trigger` on its trigger.
 */
export function useMenuTabOut(setOpen: (open: boolean) => void) {
  const trigger = useRef<HTMLButtonElement>(null);
  const tabbedOut = useRef<1 | -1 | null>(null);
  return {
    trigger,
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key !== 'Tab') return;
      e.preventDefault();
      tabbedOut.current = e.shiftKey ? -1 : 1;
      setOpen(false);
    },
    onCloseAutoFocus: (e: Event) => {
      const step = tabbedOut.current;
      tabbedOut.current = null;
      if (!step || !trigger.current) return;
      e.preventDefault();
      focusBeside(trigger.current, step, '[role="menu"]');
    },
  };
}
