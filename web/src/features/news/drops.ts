// Drops (spec 2, 4, 9): one story at a time; free users stop at a paywall after the 5th.
export const FREE_DROPS_LIMIT = 5;
export const SWIPE_THRESHOLD_PX = 100;
export const STEP_LOCK_MS = 300;
export const PROGRESS_DOTS = 7;
export const FONT_MIN = 24;
export const FONT_MAX = 48;
export const FONT_STEP = 0.5;

export type DropsStep = { kind: 'advance'; index: number } | { kind: 'paywall' } | { kind: 'none' };

/** What "next" does at `index` of `count` stories. */
export function nextDrop(index: number, count: number, subscriber: boolean): DropsStep {
  if (!subscriber && index >= FREE_DROPS_LIMIT - 1) return { kind: 'paywall' };
  if (index >= count - 1) return { kind: 'none' };
  return { kind: 'advance', index: index + 1 };
}

/** Whether tapping the story can do anything: the last story does not advance. */
export function canTapNext(index: number, count: number, subscriber: boolean): boolean {
  return nextDrop(index, count, subscriber).kind !== 'none';
}

/** An upward swipe longer than the threshold means next. */
export function isSwipeUp(startY: number, endY: number): boolean {
  return startY - endY > SWIPE_THRESHOLD_PX;
}

/** Progress dots: the first 7 stories, plus one trailing dot when there are more. */
export function progressDots(count: number, index: number): { dots: { active: boolean }[]; trailing: boolean } {
  const shown = Math.min(count, PROGRESS_DOTS);
  return {
    dots: Array.from({ length: shown }, (_, i) => ({ active: i === index })),
    trailing: count > PROGRESS_DOTS,
  };
}

/** The largest font size from 48 down to 24 (0.5 steps) at which the text fits; 24 if none does. */
export function fitFontSize(fits: (size: number) => boolean): number {
  for (let size = FONT_MAX; size > FONT_MIN; size -= FONT_STEP) {
    if (fits(size)) return size;
  }
  return FONT_MIN;
}
