// Stories: the server groups the items that report one event into one card (`item.story`,
// absent for an item alone or when the reader turned grouping off in their profile).
import type { NewsItem } from '@/lib/api/types';

/** "5 sources": how many outlets report the story, the card's own included. */
export const sourcesLabel = (sources: number) => `${sources} ${sources === 1 ? 'source' : 'sources'}`;

/** The "N sources" of an item's card, or null when it stands alone. */
export const storySources = (item: Pick<NewsItem, 'story'>): string | null => (item.story ? sourcesLabel(item.story.sources) : null);
