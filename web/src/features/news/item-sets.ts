// The reader's marked sets, one per mark kind (docs/product.md §4). An item is in at most one of
// them: adding it to one takes it out of the others; removing it touches only that one set. The
// kinds come from the server's own table (`MARK_KINDS`, written from Rust's `Mark::ALL`).
import { MARK_KINDS } from '@/lib/api/mark-kinds';
import type { components } from '@/lib/api/schema';

type ItemMarks = components['schemas']['ItemMarks'];

/** A mark kind, named by its routes' path segment (`/api/favorites`, `/api/hidden`, `/api/read`). */
export type SetKind = (typeof MARK_KINDS)[number]['segment'];

export const SET_KINDS: readonly SetKind[] = MARK_KINDS.map((k) => k.segment);

/** The kinds that take an item out of the feed (hidden, read). */
export const LEAVING_KINDS: readonly SetKind[] = MARK_KINDS.filter((k) => k.leavesFeed).map((k) => k.segment);

export const isSetKind = (value: unknown): value is SetKind => SET_KINDS.some((kind) => kind === value);

export const STORAGE_KEYS: Record<SetKind, string> = {
  favorites: 'userFavorites',
  hidden: 'userHiddenItems',
  read: 'userReadItems',
};

export type ItemSets = Record<SetKind, ReadonlySet<string>>;

/** A record with one entry per kind, in `SET_KINDS` order: what code per kind is written with. */
export function byKind<T>(value: (kind: SetKind, index: number) => T): Record<SetKind, T> {
  return Object.fromEntries(SET_KINDS.map((kind, i) => [kind, value(kind, i)])) as Record<SetKind, T>;
}

export const emptySets = (): ItemSets => byKind(() => new Set<string>());

export function addToSet(sets: ItemSets, kind: SetKind, id: string): ItemSets {
  return byKind((k) => {
    const copy = new Set(sets[k]);
    if (k === kind) copy.add(id);
    else copy.delete(id);
    return copy;
  });
}

export function removeFromSet(sets: ItemSets, kind: SetKind, id: string): ItemSets {
  const copy = new Set(sets[kind]);
  copy.delete(id);
  return { ...sets, [kind]: copy };
}

/**
 * Merges the server's lists into the local sets. The local state wins a conflict: an id the
 * server lists under one kind joins it only if no other local set already holds it, so a change
 * the server failed to save is not undone by the next load.
 */
export function mergeServerLists(sets: ItemSets, server: Partial<Record<SetKind, readonly string[] | null>>): ItemSets {
  const next = byKind((kind) => new Set(sets[kind]));
  for (const kind of SET_KINDS) {
    for (const id of server[kind] ?? []) {
      const elsewhere = SET_KINDS.some((other) => other !== kind && sets[other].has(id));
      if (!elsewhere) next[kind].add(id);
    }
  }
  return next;
}

function readKey(storage: Storage, key: string): Set<string> {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(key) ?? '[]');
    return new Set(Array.isArray(parsed) ? parsed.map(String) : []);
  } catch {
    return new Set();
  }
}

export function loadSets(storage: Storage): ItemSets {
  return byKind((kind) => readKey(storage, STORAGE_KEYS[kind]));
}

export function saveSets(storage: Storage, sets: ItemSets) {
  for (const kind of SET_KINDS) storage.setItem(STORAGE_KEYS[kind], JSON.stringify([...sets[kind]]));
}

/**
 * The feed shows only items that are neither hidden nor read, except those read by opening
 * them (`readOnOpen`), which stay where they were until the list is read again.
 */
export function visibleInFeed<T extends { id: string }>(items: readonly T[], sets: ItemSets, readOnOpen: ReadonlySet<string> = new Set()): T[] {
  return items.filter((item) => !sets.hidden.has(item.id) && (readOnOpen.has(item.id) || !LEAVING_KINDS.some((kind) => sets[kind].has(item.id))));
}

/**
 * The feed after an answer from the server (`next`, as `visibleInFeed` left it), with the
 * items read by opening that were on screen (`before`) and that the server now leaves out put
 * back after the item they followed: a read in the background (after a mark, or when the
 * service worker first takes the page) does not move the list under the reader. An item hidden
 * since is not put back.
 */
export function keepOpened<T extends { id: string }>(before: readonly T[], next: readonly T[], readOnOpen: ReadonlySet<string>, sets: ItemSets): T[] {
  if (readOnOpen.size === 0) return [...next];
  const shown = [...next];
  const ids = new Set(shown.map((item) => item.id));
  before.forEach((item, i) => {
    if (ids.has(item.id) || !readOnOpen.has(item.id) || sets.hidden.has(item.id)) return;
    const after = before.slice(0, i).findLast((previous) => ids.has(previous.id));
    shown.splice(after ? shown.findIndex((s) => s.id === after.id) + 1 : 0, 0, item);
    ids.add(item.id);
  });
  return shown;
}

/** The sets with `id` placed exactly as the server reports its marks now. */
export function withServerMarks(sets: ItemSets, id: string, marks: ItemMarks): ItemSets {
  let next = sets;
  for (const { mark, segment: kind } of MARK_KINDS) {
    const on = marks[mark];
    if (on !== sets[kind].has(id)) next = on ? addToSet(next, kind, id) : removeFromSet(next, kind, id);
  }
  return next;
}
