// POST and DELETE /api/{favorites,hidden,read}/{id}. Changes are sent through the queue of
// features/news/pending-marks.ts by the item-sets provider, never directly by a view.
import { client, unwrap } from '@/lib/api-client';
import type { SetKind } from '@/features/news/item-sets';
import type { MarkResult } from '@/lib/api/types';

/** Where one item is put in, or taken out of, each kind's list. */
const MARK_PATHS = {
  favorites: '/api/favorites/{news_id}',
  hidden: '/api/hidden/{news_id}',
  read: '/api/read/{news_id}',
} as const satisfies Record<SetKind, string>;

export interface SetChange {
  kind: SetKind;
  id: string;
  on: boolean;
}

export function updateItemSet({ kind, id, on }: SetChange): Promise<MarkResult> {
  const path = MARK_PATHS[kind];
  const init = { params: { path: { news_id: id } } };
  return unwrap(on ? client.POST(path, init) : client.DELETE(path, init));
}
