// POST and DELETE /api/{favorites,hidden,read}/{id}. Changes are sent through the queue of
// features/news/pending-marks.ts by the item-sets provider, never directly by a view.
import { client, unwrap } from '@/lib/api-client';
import type { SetKind } from '@/features/news/item-sets';
import type { MarkResult } from '@/lib/api/types';

/** Where one item is put in, or taken out of, each kind's list. */
const markPath = (kind: SetKind) => `/api/${kind}/{news_id}` as const;

export interface SetChange {
  kind: SetKind;
  id: string;
  on: boolean;
}

export function updateItemSet({ kind, id, on }: SetChange): Promise<MarkResult> {
  const path = markPath(kind);
  const init = { params: { path: { news_id: id } } };
  return unwrap(on ? client.POST(path, init) : client.DELETE(path, init));
}
