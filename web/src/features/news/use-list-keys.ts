// The list views' single-key shortcuts at work (the table is `list-keys.ts`): a key moves
// focus between the cards or presses the focused card's own control, so a key does exactly
// what the button it stands for does, and only where that button is shown.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, type RefObject } from 'react';
import { CARD, cardsOf, focusAt } from '@/features/news/card-focus';
import { listKeyAction, useListKeysEnabled } from '@/features/news/list-keys';

/** Where a move key takes focus, from the card at `at` (-1: no card has focus). */
function moveTo(to: 'next' | 'previous' | 'first' | 'last', at: number, count: number): number {
  if (to === 'first' || (at < 0 && to !== 'last')) return 0;
  if (to === 'last') return count - 1;
  return to === 'next' ? Math.min(at + 1, count - 1) : Math.max(at - 1, 0);
}

/** Keys work wherever focus is, except in a field, a menu or over a dialog (the reader included). */
function ours(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || document.querySelector('[role="dialog"]')) return false;
  const target = event.target instanceof Element ? event.target : null;
  return !target?.closest('input, textarea, select, [contenteditable="true"], [role="menu"]');
}

export function useListKeys(list: RefObject<HTMLElement | null>) {
  const [on] = useListKeysEnabled();
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!on) return;
    const onKey = (event: KeyboardEvent) => {
      const action = listKeyAction(event);
      const element = list.current;
      if (!action || !element || !ours(event)) return;
      const current = document.activeElement?.closest<HTMLElement>(CARD) ?? null;
      const at = current ? cardsOf(element).indexOf(current) : -1;
      switch (action.kind) {
        case 'move':
          if (!focusAt(element, moveTo(action.to, at, cardsOf(element).length))) return;
          break;
        case 'press': {
          const control = current?.querySelector<HTMLElement>(`[data-action="${action.action}"]`);
          if (!control) return;
          control.click();
          break;
        }
        case 'more': {
          const more = element.querySelector<HTMLButtonElement>('[data-action="more"]');
          if (!more || more.disabled) return;
          more.click();
          break;
        }
        case 'reload':
          void queryClient.refetchQueries({ type: 'active' });
          break;
        case 'help':
          document.querySelector<HTMLElement>('[data-action="keys-help"]')?.click();
          break;
      }
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [on, list, queryClient]);
}
