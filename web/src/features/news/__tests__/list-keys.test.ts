import { beforeEach, describe, expect, it } from 'vitest';
import table from '@/features/news/key-table.json';
import { LIST_KEYS, listKeyAction, setListKeysEnabled, LIST_KEYS_SETTING } from '@/features/news/list-keys';
import { moveTo } from '@/features/news/use-list-keys';

const press = (key: string, mods: Partial<Record<'altKey' | 'ctrlKey' | 'metaKey', boolean>> = {}) =>
  listKeyAction({ key, altKey: false, ctrlKey: false, metaKey: false, ...mods });

describe('list keys', () => {
  beforeEach(() => localStorage.clear());

  it('maps each key of the table to its action, case mattering', () => {
    expect(press('j')).toEqual({ kind: 'move', to: 'next' });
    expect(press('G')).toEqual({ kind: 'move', to: 'last' });
    expect(press('J')).toEqual({ kind: 'move', to: 'next-unread' });
    expect(press('K')).toEqual({ kind: 'move', to: 'previous-unread' });
    expect(press('m')).toEqual({ kind: 'press', actions: ['read'] });
    expect(press('x')).toEqual({ kind: 'press', actions: ['hide', 'restore'] });
    expect(press('M')).toEqual({ kind: 'click', action: 'more' });
    expect(press('A')).toEqual({ kind: 'mark-feed-read' });
    expect(press('U')).toEqual({ kind: 'click', action: 'undo-mark-read' });
    expect(press('q')).toBeNull();
  });

  it('leaves modified keys, and the keys the browser already answers, to the browser', () => {
    expect(press('r', { ctrlKey: true })).toBeNull();
    expect(press('f', { metaKey: true })).toBeNull();
    expect(press('j', { altKey: true })).toBeNull();
    expect(press('Enter')).toBeNull();
    expect(press('Escape')).toBeNull();
    expect(press('/')).toBeNull();
    expect(press('ArrowDown')).toBeNull();
    expect(press('1'), 'views are the tabs, on the web').toBeNull();
  });

  it("lists the terminal's keys for every command it has, with the terminal's help", () => {
    const shown = LIST_KEYS.flatMap((row) => row.keys);
    for (const key of ['j', 'k', 'g', 'G', 'J', 'K', 'Enter', 'o', 'f', 'm', 'x', 'u', 's', 'M', 't', 'A', 'U', '/', 'n', 'N', 'r', '?', 'Esc']) {
      expect(shown, key).toContain(key);
    }
    expect(new Set(shown).size, 'one row per key').toBe(shown.length);
    const favorite = table.find((row) => row.context === 'list' && row.command === 'favorite');
    expect(LIST_KEYS.find((row) => row.command === 'favorite')?.help).toBe(favorite?.help);
    expect(shown).not.toContain('Down');
  });

  it('moves among the cards, next and previous unread wrapping past read ones', () => {
    const read = [false, true, true, false];
    expect(moveTo('next', -1, read)).toBe(0);
    expect(moveTo('previous', 0, read)).toBe(0);
    expect(moveTo('last', -1, read)).toBe(3);
    expect(moveTo('next-unread', 0, read)).toBe(3);
    expect(moveTo('next-unread', 3, read)).toBe(0);
    expect(moveTo('previous-unread', 0, read)).toBe(3);
    expect(moveTo('previous-unread', -1, read)).toBe(3);
    expect(moveTo('next-unread', -1, read)).toBe(0);
    expect(moveTo('next-unread', 0, [true, true])).toBeNull();
  });

  it('remembers the switch', () => {
    setListKeysEnabled(false);
    expect(localStorage.getItem(LIST_KEYS_SETTING)).toBe('off');
    setListKeysEnabled(true);
    expect(localStorage.getItem(LIST_KEYS_SETTING)).toBe('on');
  });
});
