// Where keyboard focus goes when the card holding it leaves its list (hidden, read, restored)
// or when the reader opened from a card closes: to a card, never to the page's start, so a
// reader triaging with the keyboard goes on from where they were.
import { useEffect, type RefObject } from 'react';

export const CARD = '[data-testid="news-card"]';
/** The list of cards on screen (`CardList`). */
export const CARD_LIST = '[data-card-list]';
/** A card's own control: its title, the link that opens the reader. */
const CARD_LINK = 'h2 a';

/** The card that last held focus: its list, its item and its place in the list. */
let last: { list: HTMLElement; id: string; index: number } | null = null;

export const cardsOf = (list: HTMLElement) => [...list.querySelectorAll<HTMLElement>(CARD)];
const cardOf = (scope: ParentNode, id: string) => scope.querySelector<HTMLElement>(`${CARD}[data-item-id="${CSS.escape(id)}"]`);

/** Focuses the card now at `index` of `list`: the one that followed, or the last one. */
export function focusAt(list: HTMLElement, index: number): boolean {
  const cards = cardsOf(list);
  const card = cards[Math.min(Math.max(index, 0), cards.length - 1)];
  const link = card?.querySelector<HTMLElement>(CARD_LINK);
  link?.focus();
  link?.scrollIntoView?.({ block: 'nearest' });
  return Boolean(link);
}

/**
 * Focuses the card of `id`, or, when it has left its list, the card that took its place (the
 * previous one at the end). False when neither is on screen (e.g. the reader was opened from
 * Drops, which has no cards).
 */
export function focusCard(id: string): boolean {
  const link = cardOf(document, id)?.querySelector<HTMLElement>(CARD_LINK);
  if (link) {
    link.focus();
    return true;
  }
  return last?.id === id && last.list.isConnected ? focusAt(last.list, last.index) : false;
}

/**
 * The items of the cards before and after the card of `id` in the list on screen (the list
 * the reader was opened over), or null where there is none.
 */
export function neighbours(id: string): { previous: string | null; next: string | null } {
  const card = cardOf(document, id);
  const list = card?.closest('section');
  if (!card || !list) return { previous: null, next: null };
  const cards = cardsOf(list as HTMLElement);
  const at = cards.indexOf(card);
  return { previous: cards[at - 1]?.dataset.itemId ?? null, next: cards[at + 1]?.dataset.itemId ?? null };
}

/**
 * Keeps focus among the cards of `list`: remembers which card holds it, and when that card
 * leaves the list while focus was in it (focus falls to the page), focuses the card that
 * took its place.
 */
export function useCardFocus(list: RefObject<HTMLElement | null>) {
  useEffect(() => {
    const element = list.current;
    if (!element) return;
    const onFocusIn = (event: FocusEvent) => {
      const card = event.target instanceof Element ? event.target.closest<HTMLElement>(CARD) : null;
      if (!card?.dataset.itemId || !element.contains(card)) return;
      last = { list: element, id: card.dataset.itemId, index: cardsOf(element).indexOf(card) };
    };
    const observer = new MutationObserver(() => {
      if (last?.list !== element || cardOf(element, last.id)) return;
      const lost = !document.activeElement || document.activeElement === document.body;
      if (lost) focusAt(element, last.index);
    });
    element.addEventListener('focusin', onFocusIn);
    observer.observe(element, { childList: true });
    return () => {
      element.removeEventListener('focusin', onFocusIn);
      observer.disconnect();
      if (last?.list === element) last = null;
    };
  }, [list]);
}
