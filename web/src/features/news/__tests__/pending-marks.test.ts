import { describe, expect, it } from 'vitest';
import { emptySets, addToSet } from '@/features/news/item-sets';
import { applyPending, enqueue, itemsInSet, loadPending, savePending, settle, type PendingMark } from '@/features/news/pending-marks';
import { newsItem } from '@/test/render';

const mark = (id: string, kind: PendingMark['kind'], on: boolean, userId = 'u1'): PendingMark => ({ userId, kind, id, on });

describe('the pending-marks queue', () => {
  it('keeps the newest change per set and item, last', () => {
    let queue = enqueue([], mark('a', 'read', true));
    queue = enqueue(queue, mark('b', 'favorites', true));
    queue = enqueue(queue, mark('a', 'read', false));
    expect(queue).toEqual([mark('b', 'favorites', true), mark('a', 'read', false)]);
  });

  it('settles only the exact change the server confirmed', () => {
    const queue = [mark('a', 'read', false)];
    expect(settle(queue, mark('a', 'read', true))).toEqual(queue);
    expect(settle(queue, mark('a', 'read', false))).toEqual([]);
  });

  it('survives a reload and ignores what it cannot read', () => {
    savePending(localStorage, [mark('a', 'hidden', true)]);
    expect(loadPending(localStorage)).toEqual([mark('a', 'hidden', true)]);
    localStorage.setItem('radarPendingMarks', '[{"kind":"nope"}, 3]');
    expect(loadPending(localStorage)).toEqual([]);
    savePending(localStorage, []);
    expect(localStorage.getItem('radarPendingMarks')).toBeNull();
  });

  it('re-applies the user’s waiting changes over a server list', () => {
    const fromServer = addToSet(emptySets(), 'favorites', 'a');
    const sets = applyPending(fromServer, [mark('a', 'favorites', false), mark('b', 'read', true), mark('c', 'read', true, 'someone-else')], 'u1');
    expect([...sets.favorites]).toEqual([]);
    expect([...sets.read]).toEqual(['b']);
  });
});

describe('itemsInSet', () => {
  it('keeps the server’s order and puts items marked here first, newest mark first', () => {
    const [one, two, three, four] = [1, 2, 3, 4].map((n) => newsItem(n));
    let sets = emptySets();
    for (const id of ['item-3', 'item-1', 'item-4', 'item-2']) sets = addToSet(sets, 'read', id);
    // The server lists 3 then 1 (its own order, not by date); 4 and 2 were marked here since.
    const shown = itemsInSet('read', sets, [three, one], [one, two, three, four]);
    expect(shown.map((i) => i.id)).toEqual(['item-2', 'item-4', 'item-3', 'item-1']);
  });
});
