// A setting of this browser kept in local storage (density, keyboard shortcuts), read by
// every component that shows it and followed by all of them when one changes it.
import { useSyncExternalStore } from 'react';

/**
 * The setting stored under `key`: one of `values`, `fallback` when nothing (or something
 * else) is stored. `set` is stable, so components can pass it on freely.
 */
export function storedSetting<T extends string>(key: string, values: readonly T[], fallback: T) {
  const listeners = new Set<() => void>();
  const read = (): T => values.find((value) => value === localStorage.getItem(key)) ?? fallback;
  const set = (value: T) => {
    localStorage.setItem(key, value);
    listeners.forEach((listener) => listener());
  };
  const subscribe = (listener: () => void) => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };
  /** The value now, following changes made anywhere in the app. */
  const useValue = (): T => useSyncExternalStore(subscribe, read, () => fallback);
  return { read, set, useValue };
}
