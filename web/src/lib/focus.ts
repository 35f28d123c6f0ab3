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
