// Dark mode (docs/product.md §4): the choice lives in local storage under darkMode and toggles the `dark`
// class on <html>; index.html applies it before the first paint.
import { useCallback, useSyncExternalStore } from 'react';

export const DARK_MODE_KEY = 'darkMode';
const listeners = new Set<() => void>();

const read = () => document.documentElement.classList.contains('dark');

export function setDarkMode(on: boolean) {
  localStorage.setItem(DARK_MODE_KEY, String(on));
  document.documentElement.classList.toggle('dark', on);
  listeners.forEach((l) => l());
}

export function useDarkMode(): [boolean, () => void] {
  const dark = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    read,
    () => false,
  );
  const toggle = useCallback(() => setDarkMode(!read()), []);
  return [dark, toggle];
}
