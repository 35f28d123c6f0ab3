// The list views' single-key shortcuts. The keys are the terminal reader's: `key-table.json`
// is its table (tui/src/keys.rs, copied by `RADAR_UPDATE_KEYS=1 cargo test -p radar-tui keys`
// and checked by that test), so one table says which key does what in both readers. Here each
// command the web has is given what it does; one list drives both the handling and the help (`?`).
// The shortcuts can be switched off (WCAG 2.1.4), remembered in local storage under `listKeys`.
import table from '@/features/news/key-table.json';
import { storedSetting } from '@/lib/stored-setting';

/** What a key does to the list or to the card holding focus. */
export type ListKeyAction =
  | { kind: 'move'; to: 'next' | 'previous' | 'first' | 'last' | 'next-unread' | 'previous-unread' }
  /** Clicks the focused card's first control marked `data-action` with one of these names. */
  | { kind: 'press'; actions: readonly ('open' | 'favorite' | 'read' | 'hide' | 'restore' | 'share' | 'takeaways')[] }
  /** Clicks the page's control marked `data-action` with this name (Read More, the toast's Undo). */
  | { kind: 'click'; action: 'more' | 'undo-mark-read' }
  /** Opens the "Mark feed as read" menu. */
  | { kind: 'mark-feed-read' }
  | { kind: 'reload' }
  | { kind: 'help' };

/**
 * What the web does for each command of the table it has. `null`: the key works, but the
 * browser or another control already does it (Enter opens the focused card's reader, Esc
 * closes, `/` is the header's search), so it is listed in the help and left alone here.
 * Commands not named here (views, paging, sign-in, TV, ...) are the terminal's only.
 */
const WEB: Record<string, ListKeyAction | null> = {
  down: { kind: 'move', to: 'next' },
  up: { kind: 'move', to: 'previous' },
  top: { kind: 'move', to: 'first' },
  bottom: { kind: 'move', to: 'last' },
  next_unread: { kind: 'move', to: 'next-unread' },
  previous_unread: { kind: 'move', to: 'previous-unread' },
  next_match: { kind: 'move', to: 'next' },
  previous_match: { kind: 'move', to: 'previous' },
  read: null,
  open: { kind: 'press', actions: ['open'] },
  favorite: { kind: 'press', actions: ['favorite'] },
  mark_read: { kind: 'press', actions: ['read'] },
  hide: { kind: 'press', actions: ['hide', 'restore'] },
  restore: { kind: 'press', actions: ['restore'] },
  share: { kind: 'press', actions: ['share'] },
  takeaways: { kind: 'press', actions: ['takeaways'] },
  more: { kind: 'click', action: 'more' },
  mark_feed_read: { kind: 'mark-feed-read' },
  undo_mark_feed_read: { kind: 'click', action: 'undo-mark-read' },
  reload: { kind: 'reload' },
  search: null,
  help: { kind: 'help' },
  back: null,
};

/** The terminal's names of the keys the browser reports under another name. */
const NAMED: Record<string, string> = { Enter: 'Enter', Esc: 'Escape' };

/**
 * The table's rows the web shows, in its order: the lists' keys, then the search results'
 * own, then the global ones the web has. A row keeps the keys a browser page can take: single
 * characters, Enter and Esc (arrows, Space, Home, End and F5 stay the browser's).
 */
function webRows(): { command: string; keys: string[]; help: string; action: ListKeyAction | null }[] {
  const seen = new Set<string>();
  const rows = [];
  for (const context of ['list', 'search', 'global']) {
    for (const row of table) {
      if (row.context !== context || !(row.command in WEB) || seen.has(row.command)) continue;
      const keys = row.keys.filter((key) => [...key].length === 1 || key in NAMED);
      if (keys.length === 0) continue;
      seen.add(row.command);
      rows.push({ command: row.command, keys, help: row.help, action: WEB[row.command] });
    }
  }
  return rows;
}

/** Every key the web knows, with its help text: the help dialog lists these. */
export const LIST_KEYS: readonly { command: string; keys: string[]; help: string; action: ListKeyAction | null }[] = webRows();

const BY_KEY = new Map<string, ListKeyAction>(
  LIST_KEYS.flatMap(({ keys, action }) => (action ? keys.map((key) => [NAMED[key] ?? key, action] as const) : [])),
);

/** The action of a key press, or null: modified keys, and keys the browser keeps, are not ours. */
export function listKeyAction(event: Pick<KeyboardEvent, 'key' | 'altKey' | 'ctrlKey' | 'metaKey'>): ListKeyAction | null {
  if (event.altKey || event.ctrlKey || event.metaKey) return null;
  return BY_KEY.get(event.key) ?? null;
}

export const LIST_KEYS_SETTING = 'listKeys';
const setting = storedSetting(LIST_KEYS_SETTING, ['on', 'off'] as const, 'on');

export function setListKeysEnabled(on: boolean) {
  setting.set(on ? 'on' : 'off');
}

/** Whether the single-key shortcuts are on, and the switch. */
export function useListKeysEnabled(): [boolean, (on: boolean) => void] {
  return [setting.useValue() === 'on', setListKeysEnabled];
}
