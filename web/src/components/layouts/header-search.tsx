// The search box of every signed-in page. `/` focuses it from anywhere but a field or an open
// dialog; Esc clears it and gives the focus back; Enter goes to the results, which live in the
// address (/app?view=search&q=…) so back, forward and reload show them again. On a phone it
// is an icon that opens the box over the header's row, so the header stays one row.
import { Search, X } from 'lucide-react';
import { useCallback, useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { flushSync } from 'react-dom';
import { useLocation, useNavigate } from 'react-router';
import { paths, searchPath } from '@/config/paths';

/** The query of the results on screen, so the box shows what they are for. */
function useShownQuery() {
  const { pathname, search } = useLocation();
  const params = new URLSearchParams(search);
  return pathname === paths.app && params.get('view') === 'search' ? (params.get('q') ?? '') : '';
}

/** Whether a key press belongs to something else: a field being typed in, or an open dialog. */
const typingElsewhere = (target: EventTarget | null) =>
  (target instanceof HTMLElement && Boolean(target.closest('input, textarea, select, [contenteditable="true"]'))) ||
  Boolean(document.querySelector('[role="dialog"]'));

export function HeaderSearch() {
  const navigate = useNavigate();
  const shown = useShownQuery();
  const input = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState(shown);
  // The phone's collapsed box, opened by its icon or by `/`.
  const [open, setOpen] = useState(false);
  // The box follows the address (back, forward, a link) — React's "adjust state on new input".
  const [syncedFrom, setSyncedFrom] = useState(shown);
  if (shown !== syncedFrom) {
    setSyncedFrom(shown);
    setValue(shown);
  }

  const focusBox = useCallback(() => {
    flushSync(() => setOpen(true));
    input.current?.focus();
    input.current?.select();
  }, []);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== '/' || e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || typingElsewhere(e.target)) return;
      e.preventDefault();
      focusBox();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [focusBox]);

  const close = () => {
    setValue('');
    setOpen(false);
    input.current?.blur();
  };

  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    const q = value.trim();
    if (!q) return;
    input.current?.blur();
    setOpen(false);
    if (q !== shown.trim()) navigate(searchPath(q));
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== 'Escape') return;
    e.preventDefault();
    close();
  };

  return (
    <>
      <button
        type="button"
        aria-label="Search"
        aria-expanded={open}
        aria-controls="header-search"
        onClick={focusBox}
        className="ml-auto inline-flex h-9 w-8 shrink-0 items-center justify-center rounded-md hover:bg-slate-100 sm:hidden dark:hover:bg-slate-800"
      >
        <Search aria-hidden="true" className="h-5 w-5" />
      </button>
      <form
        role="search"
        onSubmit={onSubmit}
        className={`${
          open ? 'absolute inset-0 z-10 flex bg-white px-3 dark:bg-slate-950' : 'hidden'
        } items-center gap-2 sm:static sm:z-auto sm:flex sm:min-w-0 sm:max-w-sm sm:flex-1 sm:bg-transparent sm:px-0 sm:dark:bg-transparent`}
      >
        <label htmlFor="header-search" className="sr-only">
          Search stories
        </label>
        <div className="relative min-w-0 flex-1">
          <Search aria-hidden="true" className="pointer-events-none absolute left-2.5 top-1/2 h-4 w-4 -translate-y-1/2 text-slate-500" />
          <input
            ref={input}
            id="header-search"
            type="search"
            name="q"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            onKeyDown={onKeyDown}
            onBlur={() => !value.trim() && setOpen(false)}
            placeholder="Search stories"
            autoComplete="off"
            enterKeyHint="search"
            maxLength={500}
            className="peer h-9 w-full rounded-md border border-slate-300 bg-white pl-8 pr-8 text-sm outline-none placeholder:text-slate-500 focus:border-indigo-500 focus:ring-2 focus:ring-indigo-500/30 dark:border-slate-700 dark:bg-slate-900 [&::-webkit-search-cancel-button]:hidden"
          />
          <kbd
            aria-hidden="true"
            className="pointer-events-none absolute right-2 top-1/2 hidden -translate-y-1/2 rounded border border-slate-300 px-1.5 font-mono text-xs text-slate-500 sm:peer-placeholder-shown:block peer-focus:hidden! dark:border-slate-700"
          >
            /
          </kbd>
        </div>
        <button
          type="button"
          aria-label="Close search"
          onClick={close}
          className="inline-flex h-9 w-9 shrink-0 items-center justify-center rounded-md hover:bg-slate-100 sm:hidden dark:hover:bg-slate-800"
        >
          <X aria-hidden="true" className="h-5 w-5" />
        </button>
      </form>
    </>
  );
}
