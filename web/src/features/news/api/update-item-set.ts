// POST and DELETE /api/{favorites,hidden,read}/{id}. Changes are sent through the queue of
// features/news/pending-marks.ts by the item-sets provider, never directly by a view.
import { api } from '@/lib/api-client';
import { SET_PATHS } from '@/features/news/api/get-item-set';
import type { SetKind } from '@/features/news/item-sets';
import type { MarkResult } from '@/lib/api/types';

export interface SetChange {
  kind: SetKind;
  id: string;
  on: boolean;
}

export function updateItemSet({ kind, id, on }: SetChange): Promise<MarkResult> {
  const path = `${SET_PATHS[kind]}/${encodeURIComponent(id)}`;
  return on ? api.post<MarkResult>(path) : api.delete<MarkResult>(path);
}
