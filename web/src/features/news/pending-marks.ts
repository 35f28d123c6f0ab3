// Marks the server has not confirmed yet. Every change goes through this queue: it is sent
// at once when the server answers, and kept in local storage (under PENDING_MARKS_KEY)
// when it does not, to be sent when the server is back — on the browser's `online` event,
// on a retry interval, and after the next answer of any call. A mark is never dropped
// silently: only an answer that can never succeed (a 4xx other than 401) drops it, and the
// app then shows the warning of docs/product.md §8.
import { addToSet, isSetKind, removeFromSet, type ItemSets, type SetKind } from '@/features/news/item-sets';
import type { NewsItem } from '@/lib/api/types';

export const PENDING_MARKS_KEY = 'radarPendingMarks';

/** How often waiting marks are tried again while the server does not answer. */
export const PENDING_RETRY_MS = 15_000;

export interface PendingMark {
  userId: string;
  kind: SetKind;
  id: string;
  on: boolean;
}

const sameTarget = (a: PendingMark, b: PendingMark) => a.userId === b.userId && a.kind === b.kind && a.id === b.id;

/** Adds a change; an older change of the same set and item is superseded (the newest goes last, keeping the order of what the reader did). */
export function enqueue(queue: readonly PendingMark[], change: PendingMark): PendingMark[] {
  return [...queue.filter((m) => !sameTarget(m, change)), change];
}

/** Removes `change` once the server has it (only that exact change: a newer one for the same item stays). */
export function settle(queue: readonly PendingMark[], change: PendingMark): PendingMark[] {
  return queue.filter((m) => !(sameTarget(m, change) && m.on === change.on));
}

export function loadPending(storage: Storage): PendingMark[] {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(PENDING_MARKS_KEY) ?? '[]');
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (m): m is PendingMark =>
        m && typeof m.userId === 'string' && typeof m.id === 'string' && typeof m.on === 'boolean' && isSetKind(m.kind),
    );
  } catch {
    return [];
  }
}

export function savePending(storage: Storage, queue: readonly PendingMark[]) {
  if (queue.length === 0) storage.removeItem(PENDING_MARKS_KEY);
  else storage.setItem(PENDING_MARKS_KEY, JSON.stringify(queue));
}

/** The local sets with the user's waiting changes applied again, in order, so a server list read meanwhile does not undo them. */
export function applyPending(sets: ItemSets, queue: readonly PendingMark[], userId: string): ItemSets {
  return queue
    .filter((m) => m.userId === userId)
    .reduce((acc, m) => (m.on ? addToSet(acc, m.kind, m.id) : removeFromSet(acc, m.kind, m.id)), sets);
}

/** Whether the user has a change for `id` still waiting. */
export const hasPending = (queue: readonly PendingMark[], userId: string, id: string) => queue.some((m) => m.userId === userId && m.id === id);

/**
 * The items of one set for Favs, Read and Trash: items marked here and not yet in the
 * server's list first (newest mark first), then the server's list in the server's order.
 * `known` holds every item the app has loaded, to draw the ones marked here.
 */
export function itemsInSet(kind: SetKind, sets: ItemSets, serverItems: readonly NewsItem[], known: readonly NewsItem[]): NewsItem[] {
  const onServer = new Set(serverItems.map((item) => item.id));
  const byId = new Map(known.map((item) => [item.id, item]));
  const local = [...sets[kind]]
    .reverse()
    .filter((id) => !onServer.has(id))
    .flatMap((id) => byId.get(id) ?? []);
  return [...local, ...serverItems.filter((item) => sets[kind].has(item.id))];
}

const listeners = new Set<() => void>();
let cachedRaw: string | null = null;
let cached: PendingMark[] = [];

/**
 * The queue as a tiny store over local storage, so the provider's render, its send loop and
 * another tab all see the same list.
 */
export const pendingMarks = {
  get(): PendingMark[] {
    const raw = localStorage.getItem(PENDING_MARKS_KEY);
    if (raw !== cachedRaw) {
      cachedRaw = raw;
      cached = loadPending(localStorage);
    }
    return cached;
  },
  set(queue: readonly PendingMark[]) {
    savePending(localStorage, queue);
    listeners.forEach((listener) => listener());
  },
  subscribe(listener: () => void) {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  },
};
