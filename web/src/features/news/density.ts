// Feed density: comfortable (title, three lines of summary, actions), compact (title and
// actions) or list (one line per story: source, title, age; the actions show on the row under
// the pointer or holding focus), remembered in local storage under `feedDensity`.
import { useCallback, useSyncExternalStore } from 'react';

export type Density = 'comfortable' | 'compact' | 'list';
const DENSITIES: readonly Density[] = ['comfortable', 'compact', 'list'];
export const DENSITY_KEY = 'feedDensity';
const listeners = new Set<() => void>();

const read = (): Density => {
  const stored = localStorage.getItem(DENSITY_KEY);
  return DENSITIES.find((d) => d === stored) ?? 'comfortable';
};

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
