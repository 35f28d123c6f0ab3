// Drops (docs/product.md §2, §4, §9): one story at a time. Where the stories end is the server's word
// (`feedEnd` of the loaded pages): page on, the paywall, or the last story.
export const SWIPE_THRESHOLD_PX = 100;
export const STEP_LOCK_MS = 300;
export const PROGRESS_DOTS = 7;
export const FONT_MIN = 24;
export const FONT_MAX = 48;
export const FONT_STEP = 0.5;

/** How the loaded stories go on after the last one (see `feedEnd`). */
export type DropsEnd = 'more' | 'subscribe' | 'end';

export type DropsStep = { kind: 'advance'; index: number } | { kind: 'load' } | { kind: 'paywall' } | { kind: 'none' };

/** What "next" does at `index` of `count` loaded stories. */
export function nextDrop(index: number, count: number, end: DropsEnd): DropsStep {
  if (index < count - 1) return { kind: 'advance', index: index + 1 };
  if (end === 'more') return { kind: 'load' };
  if (end === 'subscribe') return { kind: 'paywall' };
  return { kind: 'none' };
}

/** What "previous" does: one story back, none before the first. */
export const previousDrop = (index: number): number => Math.max(0, index - 1);

/** Whether tapping the story can do anything: the very last story does not advance. */
export function canTapNext(index: number, count: number, end: DropsEnd): boolean {
  return nextDrop(index, count, end).kind !== 'none';
}

/** The swipe a pointer made: up past the threshold means next, down past it previous. */
export function swipeDirection(startY: number, endY: number): 'next' | 'previous' | null {
  if (startY - endY > SWIPE_THRESHOLD_PX) return 'next';
  if (endY - startY > SWIPE_THRESHOLD_PX) return 'previous';
  return null;
}

/** Keys of Drops: arrows, Space, j/k and Page Up/Down. */
export function dropsKey(key: string, shift = false): 'next' | 'previous' | null {
  if (key === ' ' || key === 'Spacebar') return shift ? 'previous' : 'next';
  if (['ArrowDown', 'ArrowRight', 'j', 'PageDown'].includes(key)) return 'next';
  if (['ArrowUp', 'ArrowLeft', 'k', 'PageUp'].includes(key)) return 'previous';
  return null;
}

/** Progress dots: the first 7 stories, plus one trailing dot when there are more. */
export function progressDots(count: number, index: number): { dots: { active: boolean }[]; trailing: boolean } {
  const shown = Math.min(count, PROGRESS_DOTS);
  return {
    dots: Array.from({ length: shown }, (_, i) => ({ active: i === index })),
    trailing: count > PROGRESS_DOTS,
  };
}

/**
 * The largest font size from 48 down to 24 (0.5 steps) at which the text fits, and whether
 * it fits at all: when even 24 overflows, the story is cut with a fade and "Read more".
 */
export function fitFontSize(fits: (size: number) => boolean): { size: number; fits: boolean } {
  for (let size = FONT_MAX; size >= FONT_MIN; size -= FONT_STEP) {
    if (fits(size)) return { size, fits: true };
  }
  return { size: FONT_MIN, fits: false };
}
