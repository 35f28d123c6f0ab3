// Feed density: comfortable (title, three lines of summary, actions) or compact (title and
// actions), remembered in local storage under `feedDensity`.
import { useCallback, useSyncExternalStore } from 'react';

export type Density = 'comfortable' | 'compact';
export const DENSITY_KEY = 'feedDensity';
const listeners = new Set<() => void>();

const read = (): Density => (localStorage.getItem(DENSITY_KEY) === 'compact' ? 'compact' : 'comfortable');

export function setDensity(density: Density) {
  localStorage.setItem(DENSITY_KEY, density);
  listeners.forEach((l) => l());
}

export function useDensity(): [Density, (density: Density) => void] {
  const density = useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    read,
    () => 'comfortable' as Density,
  );
  return [density, useCallback((d: Density) => setDensity(d), [])];
}
