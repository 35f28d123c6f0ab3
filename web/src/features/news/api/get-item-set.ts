// GET /api/favorites, /api/hidden, /api/read: the same shape for every set, and the
// "401 gives nothing" handling of docs/product.md §7.
import { queryOptions, useQueries, type UseQueryResult } from '@tanstack/react-query';
import { client, tolerant } from '@/lib/api-client';
import { byKind, SET_KINDS, type SetKind } from '@/features/news/item-sets';
import type { NewsItem } from '@/lib/api/types';

/** Each kind's list is at `/api/{segment}` (the mark's path segment, from `MARK_KINDS`). */
export const setPath = (kind: SetKind) => `/api/${kind}` as const;

export async function getItemSet(kind: SetKind, signal?: AbortSignal): Promise<NewsItem[] | null> {
  return tolerant(client.GET(setPath(kind), { signal }));
}

export const itemSetQueryOptions = (kind: SetKind, userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['item-set', kind, userId ?? null],
    queryFn: ({ signal }) => getItemSet(kind, signal),
    enabled: Boolean(userId),
  });

/** Every kind's list as the server has it, with its error and loading state. */
export interface ServerSets {
  data: Record<SetKind, NewsItem[] | null | undefined>;
  error: Record<SetKind, Error | null>;
  loading: Record<SetKind, boolean>;
}

// At module level, so TanStack Query keeps the combined answer while no list changes.
const combine = (results: UseQueryResult<NewsItem[] | null>[]): ServerSets => ({
  data: byKind((_, i) => results[i].data),
  error: byKind((_, i) => results[i].error),
  loading: byKind((_, i) => results[i].isLoading),
});

/** The reader's lists of every kind (`SET_KINDS`), read while signed in. */
export function useServerSets(userId: string | null | undefined): ServerSets {
  return useQueries({ queries: SET_KINDS.map((kind) => itemSetQueryOptions(kind, userId)), combine });
}
