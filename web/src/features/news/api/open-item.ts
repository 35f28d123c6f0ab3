// POST /api/news/{id}/open: the reader opened an item; the server decides whether that reads
// it (an unmarked item opened from the feed, Drops or search, with mark-on-open on).
import { client, unwrap } from '@/lib/api-client';
import type { AppView } from '@/config/paths';
import type { OpenedFrom } from '@/lib/api/types';

/** The list a view shows, as the server names it. */
const FROM: Record<AppView, OpenedFrom> = {
  feed: 'feed',
  drops: 'drops',
  search: 'search',
  favorites: 'favorites',
  read: 'read',
  trash: 'hidden',
  shared: 'shared',
};

export const openItem = (id: string, view: AppView) =>
  unwrap(client.POST('/api/news/{news_id}/open', { params: { path: { news_id: id } }, body: { from: FROM[view] } }));
