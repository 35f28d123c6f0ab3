import { beforeEach, describe, expect, it } from 'vitest';
import { LIST_KEYS, listKeyAction, setListKeysEnabled, LIST_KEYS_SETTING } from '@/features/news/list-keys';

const press = (key: string, mods: Partial<Record<'altKey' | 'ctrlKey' | 'metaKey', boolean>> = {}) =>
  listKeyAction({ key, altKey: false, ctrlKey: false, metaKey: false, ...mods });

describe('list keys', () => {
  beforeEach(() => localStorage.clear());

  it('maps each key of the table to its action, case mattering', () => {
    expect(press('j')).toEqual({ kind: 'move', to: 'next' });
    expect(press('G')).toEqual({ kind: 'move', to: 'last' });
    expect(press('m')).toEqual({ kind: 'press', action: 'read' });
    expect(press('M')).toEqual({ kind: 'more' });
    expect(press('q')).toBeNull();
  });

  it('leaves modified keys to the browser', () => {
    expect(press('r', { ctrlKey: true })).toBeNull();
    expect(press('f', { metaKey: true })).toBeNull();
    expect(press('j', { altKey: true })).toBeNull();
  });

  it('has one entry per key', () => {
    const keys = LIST_KEYS.map((k) => k.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('remembers the switch', () => {
    setListKeysEnabled(false);
    expect(localStorage.getItem(LIST_KEYS_SETTING)).toBe('off');
    setListKeysEnabled(true);
    expect(localStorage.getItem(LIST_KEYS_SETTING)).toBe('on');
  });
});
