// Holds the favourite/hidden/read sets for the signed-in user: changed at once on the client,
// kept in local storage, sent to the server through the pending-marks queue (kept while the
// server is unreachable), merged with the server's lists. After a hide, read, restore or
// unread reaches the server, the feed is read again so it is refilled to the allowance.
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useServerSets } from '@/features/news/api/get-item-set';
import { openItem } from '@/features/news/api/open-item';
import { UNREAD_KEY } from '@/lib/unread';
import { updateItemSet } from '@/features/news/api/update-item-set';
import type { AppView } from '@/config/paths';
import { addToSet, byKind, LEAVING_KINDS, loadSets, mergeServerLists, removeFromSet, saveSets, SET_KINDS, withServerMarks, type ItemSets, type SetKind } from '@/features/news/item-sets';
import { applyPending, enqueue, hasPending, PENDING_RETRY_MS, pendingMarks, settle, type PendingMark } from '@/features/news/pending-marks';
import { ApiError, onServerReachable } from '@/lib/api-client';
import type { NewsItem } from '@/lib/api/types';
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
  /** How many of the reader's changes wait for the server. */
  pendingCount: number;
  change(kind: SetKind, id: string, on: boolean, messages?: ChangeMessages): void;
  /**
   * Items read by opening them here: they stay in the list they were opened from, dimmed,
   * until that list is read again from the server.
   */
  readOnOpen: ReadonlySet<string>;
  /** Tells the server the reader opened an item from `view`; it decides whether that reads it. */
  open(id: string, view: AppView): void;
  /** The reader reloads: items read by opening leave the lists with the next answer. */
  forgetOpened(): void;
}

const ItemSetsContext = createContext<ItemSetsValue | null>(null);

const markKey = (m: PendingMark) => `${m.userId}\u0000${m.kind}\u0000${m.id}\u0000${m.on}`;

/** An answer that trying again cannot change (the item is gone, the request is refused); 401 heals with a new token. */
const isPermanent = (error: unknown) => error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 401;

export function ItemSetsProvider({ children }: { children: ReactNode }) {
  const { user } = useAuth();
  const userId = user?.id ?? null;
  const queryClient = useQueryClient();
  const [sets, setSets] = useState<ItemSets>(() => loadSets(localStorage));
  const queue = useSyncExternalStore(pendingMarks.subscribe, pendingMarks.get, pendingMarks.get);
  const server = useServerSets(userId);

  // Merged during render when a server list arrives (React's "adjust state on new input"
  // pattern), so the first paint after loading already shows the merged sets; changes
  // still waiting for the server are applied on top, so a list read meanwhile cannot undo them.
  const [mergedFrom, setMergedFrom] = useState<unknown[]>([]);
  const lists = SET_KINDS.map((kind) => server.data[kind]);
  if (lists.some((list, i) => list !== mergedFrom[i])) {
    setMergedFrom(lists);
    setSets((current) =>
      applyPending(
        mergeServerLists(
          current,
          byKind((kind) => server.data[kind]?.map((i) => i.id)),
        ),
        queue,
        userId ?? '',
      ),
    );
  }

  useEffect(() => {
    if (userId) saveSets(localStorage, sets);
  }, [sets, userId]);

  const messages = useRef(new Map<string, ChangeMessages>());
  const warned = useRef(new Set<string>());
  const sending = useRef(false);

  /** Sends the user's waiting changes in order, until the queue is empty or the server does not answer. */
  const send = useCallback(async () => {
    if (!userId || sending.current) return;
    sending.current = true;
    const saved = new Set<SetKind>();
    try {
      for (;;) {
        const mark = pendingMarks.get().find((m) => m.userId === userId);
        if (!mark) break;
        const key = markKey(mark);
        const said = messages.current.get(key) ?? {};
        try {
          const result = await updateItemSet(mark);
          pendingMarks.set(settle(pendingMarks.get(), mark));
          messages.current.delete(key);
          if (!result?.clientSideOnly) saved.add(mark.kind);
          // The server's word on the item wins, unless the reader has changed it again since.
          if (result?.marks && !hasPending(pendingMarks.get(), userId, mark.id)) setSets((s) => withServerMarks(s, mark.id, result.marks));
          if (said.success) toast(said.success);
        } catch (error) {
          console.warn(`Saving ${mark.kind} failed`, error);
          const permanent = isPermanent(error);
          if (permanent) pendingMarks.set(settle(pendingMarks.get(), mark));
          // The reader hears once per change; a change kept for later is sent without a word.
          if (!warned.current.has(key)) {
            warned.current.add(key);
            toast(said.failure ?? { title: 'Warning', description: WARNINGS[mark.kind][mark.on ? 'on' : 'off'] });
          }
          if (!permanent) break;
        }
      }
    } finally {
      sending.current = false;
      for (const kind of saved) void queryClient.invalidateQueries({ queryKey: ['item-set', kind] });
      // Every mark may change what is left to read (a favourite clears a read mark).
      if (saved.size > 0) void queryClient.invalidateQueries({ queryKey: UNREAD_KEY });
      // Hiding, reading, restoring or unreading changes what the server puts in the feed.
      if (LEAVING_KINDS.some((kind) => saved.has(kind))) void queryClient.invalidateQueries({ queryKey: ['news'] });
      // Search results leave out hidden items only: a hide or restore changes them.
      if (saved.has('hidden')) void queryClient.invalidateQueries({ queryKey: ['search'] });
    }
  }, [userId, queryClient]);

  const waiting = Boolean(userId) && queue.some((m) => m.userId === userId);
  useEffect(() => {
    if (!waiting) return;
    const retry = () => void send();
    retry();
    const timer = window.setInterval(retry, PENDING_RETRY_MS);
    window.addEventListener('online', retry);
    const unsubscribe = onServerReachable(retry);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('online', retry);
      unsubscribe();
    };
  }, [waiting, send]);

  const change = useCallback(
    (kind: SetKind, id: string, on: boolean, said: ChangeMessages = {}) => {
      setSets((current) => (on ? addToSet(current, kind, id) : removeFromSet(current, kind, id)));
      if (!userId) return;
      const mark: PendingMark = { userId, kind, id, on };
      messages.current.set(markKey(mark), said);
      warned.current.delete(markKey(mark));
      pendingMarks.set(enqueue(pendingMarks.get(), mark));
      void send();
    },
    [userId, send],
  );

  const [readOnOpen, setReadOnOpen] = useState<ReadonlySet<string>>(() => new Set());
  const open = useCallback(
    (id: string, view: AppView) => {
      // Nothing to decide for a visitor, or while a change of this item waits for the server.
      if (!userId || hasPending(pendingMarks.get(), userId, id)) return;
      openItem(id, view).then(
        (opened) => {
          if (!opened.markedRead) return;
          setReadOnOpen((kept) => new Set(kept).add(id));
          if (!hasPending(pendingMarks.get(), userId, id)) setSets((s) => withServerMarks(s, id, opened.marks));
          void queryClient.invalidateQueries({ queryKey: UNREAD_KEY });
          void queryClient.invalidateQueries({ queryKey: ['item-set', 'read'] });
        },
        // Reading on: an opening the server did not hear of leaves the item unread.
        (error: unknown) => console.warn('Opening was not recorded', error),
      );
    },
    [userId, queryClient],
  );

  const forgetOpened = useCallback(() => setReadOnOpen(new Set()), []);

  const pendingCount = userId ? queue.filter((m) => m.userId === userId).length : 0;
  const value = useMemo<ItemSetsValue>(
    () => ({
      sets,
      change,
      readOnOpen,
      open,
      forgetOpened,
      pendingCount,
      serverItems: byKind((kind) => server.data[kind] ?? []),
      serverErrors: server.error,
      serverLoading: server.loading,
    }),
    [sets, change, readOnOpen, open, forgetOpened, pendingCount, server],
  );

  return <ItemSetsContext.Provider value={value}>{children}</ItemSetsContext.Provider>;
}

export function useItemSets(): ItemSetsValue {
  const value = useContext(ItemSetsContext);
  if (!value) throw new Error('useItemSets must be used inside <ItemSetsProvider>');
  return value;
}
