import { Moon, Sun } from 'lucide-react';
import { useDarkMode } from '@/lib/dark-mode';

export function DarkModeToggle() {
  const [dark, toggle] = useDarkMode();
  return (
    <button
      type="button"
      onClick={toggle}
      aria-pressed={dark}
      aria-label="Dark mode"
      title={dark ? 'Switch to light mode' : 'Switch to dark mode'}
      className="inline-flex h-9 w-8 items-center justify-center rounded-md hover:bg-slate-100 sm:w-9 dark:hover:bg-slate-800"
    >
      {dark ? <Sun aria-hidden="true" className="h-5 w-5" /> : <Moon aria-hidden="true" className="h-5 w-5" />}
    </button>
  );
}
