import { List, Rows2, Rows4 } from 'lucide-react';
import { useDensity, type Density } from '@/features/news/density';

const OPTIONS: { value: Density; label: string; icon: typeof Rows2 }[] = [
  { value: 'comfortable', label: 'Comfortable', icon: Rows2 },
  { value: 'compact', label: 'Compact', icon: Rows4 },
  { value: 'list', label: 'List', icon: List },
];

/** Comfortable (three lines of summary) or compact (titles only) cards, or a list of one-line rows. */
export function DensityToggle() {
  const [density, setDensity] = useDensity();
  return (
    <div role="group" aria-label="Density" className="inline-flex rounded-lg bg-slate-100 p-0.5 dark:bg-slate-800">
      {OPTIONS.map(({ value, label, icon: Icon }) => (
        <button
          key={value}
          type="button"
          aria-pressed={density === value}
          onClick={() => setDensity(value)}
          title={value === 'list' ? 'One line per story' : `${label} cards`}
          className={`inline-flex h-8 items-center gap-1.5 rounded-md px-2.5 text-xs font-medium ${
            density === value ? 'bg-white text-slate-900 shadow-sm dark:bg-slate-950 dark:text-slate-100' : 'text-slate-600 dark:text-slate-300'
          }`}
        >
          <Icon aria-hidden="true" className="h-3.5 w-3.5" />
          {/* A phone's title row holds three icons, not three words beside the title. */}
          <span className="sr-only sm:not-sr-only">{label}</span>
        </button>
      ))}
    </div>
  );
}
