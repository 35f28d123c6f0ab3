// The look of a dropdown menu (Radix `react-dropdown-menu`), shared by every menu.

/** A menu's panel. */
export const menuContentClass =
  'z-50 rounded-lg border border-slate-200 bg-white p-1 text-slate-900 shadow-lg dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100';

/** One item of a menu. */
export const menuItemClass =
  'block w-full cursor-pointer rounded px-3 py-2 text-left text-sm outline-none data-[highlighted]:bg-slate-100 dark:data-[highlighted]:bg-slate-800';
