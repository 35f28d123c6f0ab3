// Holds the favourite/hidden/read sets for the signed-in user: changed at once on the client,
// kept in local storage, saved to the server in the background, merged with the server's lists.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useItemSet } from '@/features/news/api/get-item-set';
import { useUpdateItemSet } from '@/features/news/api/update-item-set';
import { addToSet, loadSets, mergeServerLists, removeFromSet, saveSets, type ItemSets, type SetKind } from '@/features/news/item-sets';
import type { NewsItem } from '@/features/news/types';
import { useAuth } from '@/lib/auth';
import { toast, type ToastInput } from '@/lib/toast';

const WARNINGS: Record<SetKind, Record<'on' | 'off', string>> = {
  favorites: {
    on: 'Server had issues saving your favorite, but your app state has been updated.',
    off: 'Server had issues removing your favorite, but your app state has been updated.',
  },
  hidden: {
    on: 'Server had issues hiding this item, but your app state has been updated.',
    off: 'Server had issues unhiding this item, but your app state has been updated.',
  },
  read: {
    on: 'Server had issues marking this item as read, but your app state has been updated.',
    off: 'Server had issues unmarking this item as read, but your app state has been updated.',
  },
};

export interface ChangeMessages {
  success?: ToastInput;
  failure?: ToastInput;
}

interface ItemSetsValue {
  sets: ItemSets;
  /** Items the server listed per set, for views that must show items no longer in the feed. */
  serverItems: Record<SetKind, NewsItem[]>;
  serverErrors: Record<SetKind, Error | null>;
  serverLoading: Record<SetKind, boolean>;
  change(kind: SetKind, id: string, on: boolean, messages?: ChangeMessages): void;
}

const ItemSetsContext = createContext<ItemSetsValue | null>(null);

export function ItemSetsProvider({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const signedIn = Boolean(user);
  const [sets, setSets] = useState<ItemSets>(() => loadSets(localStorage));
  const favorites = useItemSet('favorites', user?.id);
  const hidden = useItemSet('hidden', user?.id);
  const read = useItemSet('read', user?.id);
  const update = useUpdateItemSet();

  // Merged during render when a server list arrives (React's "adjust state on new input"
  // pattern), so the first paint after loading already shows the merged sets.
  const [mergedFrom, setMergedFrom] = useState<unknown[]>([]);
  const lists = [favorites.data, hidden.data, read.data];
  if (lists.some((list, i) => list !== mergedFrom[i])) {
    setMergedFrom(lists);
    setSets((current) =>
      mergeServerLists(current, {
        favorites: favorites.data?.map((i) => i.id),
        hidden: hidden.data?.map((i) => i.id),
        read: read.data?.map((i) => i.id),
      }),
    );
  }

  useEffect(() => {
    if (signedIn) saveSets(localStorage, sets);
  }, [sets, signedIn]);

  const { mutate } = update;
  const change = useCallback(
    (kind: SetKind, id: string, on: boolean, messages: ChangeMessages = {}) => {
      setSets((current) => (on ? addToSet(current, kind, id) : removeFromSet(current, kind, id)));
      if (!signedIn) return;
      mutate(
        { kind, id, on },
        {
          onSuccess: () => {
            if (messages.success) toast(messages.success);
          },
          onError: (error) => {
            console.warn(`Saving ${kind} failed`, error);
            toast(messages.failure ?? { title: 'Warning', description: WARNINGS[kind][on ? 'on' : 'off'] });
          },
        },
      );
    },
    [mutate, signedIn],
  );

  const value = useMemo<ItemSetsValue>(
    () => ({
      sets,
      change,
      serverItems: { favorites: favorites.data ?? [], hidden: hidden.data ?? [], read: read.data ?? [] },
      serverErrors: { favorites: favorites.error, hidden: hidden.error, read: read.error },
      serverLoading: { favorites: favorites.isLoading, hidden: hidden.isLoading, read: read.isLoading },
    }),
    [sets, change, favorites.data, hidden.data, read.data, favorites.error, hidden.error, read.error, favorites.isLoading, hidden.isLoading, read.isLoading],
  );

  return <ItemSetsContext.Provider value={value}>{children}</ItemSetsContext.Provider>;
}

export function useItemSets(): ItemSetsValue {
  const value = useContext(ItemSetsContext);
  if (!value) throw new Error('useItemSets must be used inside <ItemSetsProvider>');
  return value;
}

/** The items of one set: the server's list plus loaded feed items the local set holds, newest first. */
export function itemsInSet(kind: SetKind, sets: ItemSets, serverItems: NewsItem[], feedItems: NewsItem[]): NewsItem[] {
  const byId = new Map<string, NewsItem>();
  for (const item of [...serverItems, ...feedItems]) if (sets[kind].has(item.id) && !byId.has(item.id)) byId.set(item.id, item);
  return [...byId.values()].sort((a, b) => b.published_date.localeCompare(a.published_date));
}
