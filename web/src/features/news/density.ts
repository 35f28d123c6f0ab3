// Feed density: comfortable (title, three lines of summary, actions), compact (title and
// actions) or list (one line per story: source, title, age; the actions show on the row under
// the pointer or holding focus), remembered in local storage under `feedDensity`.
import { storedSetting } from '@/lib/stored-setting';

export type Density = 'comfortable' | 'compact' | 'list';
export const DENSITY_KEY = 'feedDensity';

const density = storedSetting<Density>(DENSITY_KEY, ['comfortable', 'compact', 'list'], 'comfortable');

export const setDensity = density.set;

export function useDensity(): [Density, (density: Density) => void] {
  return [density.useValue(), density.set];
}
