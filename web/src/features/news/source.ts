// Who published an item, as its card names and colours it. Plain functions without React:
// the cards use them, and so does the first paint (src/features/news/first-paint), which runs before
// React has arrived.
import type { NewsItem } from '@/lib/api/types';

/** The server names the publisher; an item without a URL has no source name (docs/product.md §2). */
export const itemSource = (item: Pick<NewsItem, 'source'>) => item.source ?? 'Source';

const HUES = [
  'bg-indigo-100 text-indigo-800 dark:bg-indigo-900/60 dark:text-indigo-200',
  'bg-emerald-100 text-emerald-800 dark:bg-emerald-900/60 dark:text-emerald-200',
  'bg-amber-100 text-amber-900 dark:bg-amber-900/60 dark:text-amber-200',
  'bg-rose-100 text-rose-800 dark:bg-rose-900/60 dark:text-rose-200',
  'bg-sky-100 text-sky-800 dark:bg-sky-900/60 dark:text-sky-200',
  'bg-violet-100 text-violet-800 dark:bg-violet-900/60 dark:text-violet-200',
  'bg-teal-100 text-teal-800 dark:bg-teal-900/60 dark:text-teal-200',
  'bg-orange-100 text-orange-900 dark:bg-orange-900/60 dark:text-orange-200',
];

/** The same source always gets the same colour. */
export function sourceHue(source: string): string {
  let hash = 0;
  for (const ch of source) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return HUES[hash % HUES.length];
}
