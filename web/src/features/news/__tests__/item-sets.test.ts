import { beforeEach, describe, expect, it } from 'vitest';
import {
  addToSet,
  emptySets,
  loadSets,
  mergeServerLists,
  removeFromSet,
  saveSets,
  visibleInFeed,
  keepOpened,
  type ItemSets,
} from '@/features/news/item-sets';

const ids = (sets: ItemSets) => ({
  favorites: [...sets.favorites],
  hidden: [...sets.hidden],
  read: [...sets.read],
});

describe('mutually exclusive sets', () => {
  it('favouriting removes the item from hidden and read', () => {
    let sets = addToSet(emptySets(), 'hidden', 'a');
    sets = addToSet(sets, 'read', 'b');
    sets = addToSet(sets, 'favorites', 'a');
    sets = addToSet(sets, 'favorites', 'b');
    expect(ids(sets)).toEqual({ favorites: ['a', 'b'], hidden: [], read: [] });
  });

  it('hiding removes the item from favourites and read', () => {
    const sets = addToSet(addToSet(emptySets(), 'favorites', 'a'), 'hidden', 'a');
    expect(ids(sets)).toEqual({ favorites: [], hidden: ['a'], read: [] });
  });

  it('marking read removes the item from favourites and hidden', () => {
    const sets = addToSet(addToSet(emptySets(), 'hidden', 'a'), 'read', 'a');
    expect(ids(sets)).toEqual({ favorites: [], hidden: [], read: ['a'] });
  });

  it('removing touches only its own set', () => {
    let sets = addToSet(emptySets(), 'favorites', 'a');
    sets = addToSet(sets, 'read', 'b');
    sets = removeFromSet(sets, 'favorites', 'a');
    expect(ids(sets)).toEqual({ favorites: [], hidden: [], read: ['b'] });
  });

  it('does not mutate its input', () => {
    const before = emptySets();
    addToSet(before, 'favorites', 'a');
    expect(before.favorites.size).toBe(0);
  });
});

describe('local storage', () => {
  beforeEach(() => localStorage.clear());

  it('round-trips under userFavorites, userHiddenItems and userReadItems', () => {
    let sets = addToSet(emptySets(), 'favorites', 'f');
    sets = addToSet(sets, 'hidden', 'h');
    sets = addToSet(sets, 'read', 'r');
    saveSets(localStorage, sets);
    expect(JSON.parse(localStorage.getItem('userFavorites')!)).toEqual(['f']);
    expect(JSON.parse(localStorage.getItem('userHiddenItems')!)).toEqual(['h']);
    expect(JSON.parse(localStorage.getItem('userReadItems')!)).toEqual(['r']);
    expect(ids(loadSets(localStorage))).toEqual({ favorites: ['f'], hidden: ['h'], read: ['r'] });
  });

  it('treats missing or corrupt values as empty', () => {
    localStorage.setItem('userFavorites', '{not json');
    localStorage.setItem('userHiddenItems', '"a string"');
    expect(ids(loadSets(localStorage))).toEqual({ favorites: [], hidden: [], read: [] });
  });
});

describe('mergeServerLists', () => {
  it('adds server ids to the local sets', () => {
    const merged = mergeServerLists(addToSet(emptySets(), 'favorites', 'local'), {
      favorites: ['s1'],
      hidden: ['s2'],
      read: null,
    });
    expect(ids(merged)).toEqual({ favorites: ['local', 's1'], hidden: ['s2'], read: [] });
  });

  it('keeps the local choice when the server still lists the item elsewhere', () => {
    const local = addToSet(emptySets(), 'read', 'a');
    const merged = mergeServerLists(local, { favorites: ['a'] });
    expect(ids(merged)).toEqual({ favorites: [], hidden: [], read: ['a'] });
  });
});

describe('visibleInFeed', () => {
  it('leaves out hidden and read items, keeps favourites', () => {
    let sets = addToSet(emptySets(), 'hidden', 'h');
    sets = addToSet(sets, 'read', 'r');
    sets = addToSet(sets, 'favorites', 'f');
    const items = ['a', 'h', 'r', 'f'].map((id) => ({ id }));
    expect(visibleInFeed(items, sets).map((i) => i.id)).toEqual(['a', 'f']);
  });

  it('keeps an item read by opening it in place, but not one hidden after', () => {
    let sets = addToSet(emptySets(), 'read', 'opened');
    sets = addToSet(sets, 'read', 'marked');
    // Opened, then hidden: hiding wins over having been opened.
    sets = addToSet(sets, 'hidden', 'gone');
    const items = ['a', 'opened', 'marked', 'gone'].map((id) => ({ id }));
    const readOnOpen = new Set(['opened', 'gone']);
    expect(visibleInFeed(items, sets, readOnOpen).map((i) => i.id)).toEqual(['a', 'opened']);
    sets = addToSet(removeFromSet(sets, 'read', 'opened'), 'hidden', 'opened');
    expect(visibleInFeed(items, sets, readOnOpen).map((i) => i.id)).toEqual(['a']);
  });
});

describe('keepOpened', () => {
  const list = (...ids: string[]) => ids.map((id) => ({ id }));
  const ids = (items: { id: string }[]) => items.map((i) => i.id);

  it('puts an item read by opening back where it was when the server leaves it out', () => {
    const sets = addToSet(emptySets(), 'read', 'b');
    const before = list('a', 'b', 'c', 'd');
    expect(ids(keepOpened(before, list('a', 'c', 'd'), new Set(['b']), sets))).toEqual(['a', 'b', 'c', 'd']);
    expect(ids(keepOpened(list('b', 'c'), list('c', 'e'), new Set(['b']), sets)), 'at the start').toEqual(['b', 'c', 'e']);
  });

  it('leaves out what was not read by opening, and what was hidden since', () => {
    let sets = addToSet(emptySets(), 'read', 'b');
    const before = list('a', 'b', 'c');
    expect(ids(keepOpened(before, list('a', 'c'), new Set(), sets))).toEqual(['a', 'c']);
    sets = addToSet(removeFromSet(sets, 'read', 'b'), 'hidden', 'b');
    expect(ids(keepOpened(before, list('a', 'c'), new Set(['b']), sets))).toEqual(['a', 'c']);
  });
});
