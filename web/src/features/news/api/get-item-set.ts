// GET /api/favorites, /api/hidden, /api/read: the same shape for the three sets, and the
// "401 gives nothing" handling of docs/product.md §7.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { requestTolerant } from '@/lib/api-client';
import type { SetKind } from '@/features/news/item-sets';
import type { NewsItem } from '@/lib/api/types';

export const SET_PATHS: Record<SetKind, string> = {
  favorites: '/api/favorites',
  hidden: '/api/hidden',
  read: '/api/read',
};

export async function getItemSet(kind: SetKind, signal?: AbortSignal): Promise<NewsItem[] | null> {
  return requestTolerant<NewsItem[]>(SET_PATHS[kind], { signal });
}

export const itemSetQueryOptions = (kind: SetKind, userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['item-set', kind, userId ?? null],
    queryFn: ({ signal }) => getItemSet(kind, signal),
    enabled: Boolean(userId),
  });

export function useItemSet(kind: SetKind, userId: string | null | undefined) {
  return useQuery(itemSetQueryOptions(kind, userId));
}
