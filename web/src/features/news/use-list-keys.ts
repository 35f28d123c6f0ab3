// The list views' single-key shortcuts at work (the table is `list-keys.ts`): a key moves
// focus between the cards or presses the focused card's own control, so a key does exactly
// what the button it stands for does, and only where that button is shown.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { CARD, CARD_LIST, cardsOf, focusAt } from '@/features/news/card-focus';
import { useItemSets } from '@/features/news/components/item-sets-provider';
import { openMarkReadMenu } from '@/features/news/components/mark-read-trigger';
import { listKeyAction, useListKeysEnabled, type ListKeyAction } from '@/features/news/list-keys';
import { toast } from '@/lib/toast';

type Move = Extract<ListKeyAction, { kind: 'move' }>['to'];

/**
 * Where a move key takes focus, from the card at `at` (-1: no card has focus), among cards
 * whose read state is `read`; null when no card is unread. Next and previous unread wrap, as
 * in the terminal.
 */
export function moveTo(to: Move, at: number, read: readonly boolean[]): number | null {
  const count = read.length;
  if (to === 'next-unread' || to === 'previous-unread') {
    const step = to === 'next-unread' ? 1 : -1;
    const from = at < 0 && step < 0 ? count : at;
    for (let i = 1; i <= count; i++) {
      const j = (((from + step * i) % count) + count) % count;
      if (!read[j]) return j;
    }
    return null;
  }
  if (to === 'first' || (at < 0 && to !== 'last')) return 0;
  if (to === 'last') return count - 1;
  return to === 'next' ? Math.min(at + 1, count - 1) : Math.max(at - 1, 0);
}

/** Clicks the page's control marked `data-action="<name>"`, when there is one to click. */
function clickAction(name: string): boolean {
  const control = document.querySelector<HTMLButtonElement>(`[data-action="${name}"]`);
  if (!control || control.disabled) return false;
  control.click();
  return true;
}

/** Keys work wherever focus is, except in a field, a menu or over a dialog (the reader included). */
function ours(event: KeyboardEvent): boolean {
  if (event.defaultPrevented || document.querySelector('[role="dialog"]')) return false;
  const target = event.target instanceof Element ? event.target : null;
  return !target?.closest('input, textarea, select, [contenteditable="true"], [role="menu"]');
}

/**
 * Answers the keys over a list view (`active`). Mounted with the view rather than its list, so
 * that the keys that need no card (Undo after the feed was marked read, reload, help) work
 * over an empty list too; the list is the one on screen (`CARD_LIST`). Inside the item-sets
 * provider: a reload (`r`) lets the stories read by opening go.
 */
export function useListKeys(active: boolean) {
  const [on] = useListKeysEnabled();
  const queryClient = useQueryClient();
  const { forgetOpened } = useItemSets();
  useEffect(() => {
    if (!on || !active) return;
    const onKey = (event: KeyboardEvent) => {
      const action = listKeyAction(event);
      if (!action || !ours(event)) return;
      const element = document.querySelector<HTMLElement>(CARD_LIST);
      const current = document.activeElement?.closest<HTMLElement>(CARD) ?? null;
      const at = current && element ? cardsOf(element).indexOf(current) : -1;
      switch (action.kind) {
        case 'move': {
          if (!element) return;
          const to = moveTo(action.to, at, cardsOf(element).map((card) => card.dataset.read !== undefined));
          if (to === null) toast({ title: 'No unread stories here.' });
          else if (!focusAt(element, to)) return;
          break;
        }
        case 'press': {
          const control = action.actions.map((name) => current?.querySelector<HTMLElement>(`[data-action="${name}"]`)).find(Boolean);
          if (!control) return;
          control.click();
          break;
        }
        case 'click':
          if (!clickAction(action.action)) return;
          break;
        case 'mark-feed-read':
          // Opened from a key, the menu focuses its first choice (Radix does so for keyboard use).
          if (!openMarkReadMenu()) return;
          break;
        case 'reload':
          forgetOpened();
          void queryClient.refetchQueries({ type: 'active' });
          break;
        case 'help':
          if (!clickAction('keys-help')) return;
          break;
      }
      event.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [on, active, queryClient, forgetOpened]);
}
