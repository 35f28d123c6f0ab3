// The list views' single-key shortcuts (the terminal reader's keys, tui/src/keys.rs, where
// the web has the same command): one table drives both the handling and the help (`?`).
// They can be switched off (WCAG 2.1.4), remembered in local storage under `listKeys`.
import { storedSetting } from '@/lib/stored-setting';

/** What a key does to the list or to the card holding focus. */
export type ListKeyAction =
  | { kind: 'move'; to: 'next' | 'previous' | 'first' | 'last' }
  /** Clicks the card's control marked `data-action` with this name, when it has one. */
  | { kind: 'press'; action: 'open' | 'favorite' | 'read' | 'hide' | 'restore' | 'share' | 'takeaways' }
  | { kind: 'more' }
  | { kind: 'reload' }
  | { kind: 'help' };

export const LIST_KEYS: readonly { key: string; label: string; what: string; action: ListKeyAction }[] = [
  { key: 'j', label: 'j', what: 'Next story', action: { kind: 'move', to: 'next' } },
  { key: 'k', label: 'k', what: 'Previous story', action: { kind: 'move', to: 'previous' } },
  { key: 'g', label: 'g', what: 'First story', action: { kind: 'move', to: 'first' } },
  { key: 'G', label: 'G', what: 'Last story', action: { kind: 'move', to: 'last' } },
  { key: 'o', label: 'o', what: 'Open the source', action: { kind: 'press', action: 'open' } },
  { key: 'f', label: 'f', what: 'Favourite', action: { kind: 'press', action: 'favorite' } },
  { key: 'm', label: 'm', what: 'Mark read or unread', action: { kind: 'press', action: 'read' } },
  { key: 'x', label: 'x', what: 'Hide', action: { kind: 'press', action: 'hide' } },
  { key: 'u', label: 'u', what: 'Restore (Trash)', action: { kind: 'press', action: 'restore' } },
  { key: 's', label: 's', what: 'Share on LinkedIn', action: { kind: 'press', action: 'share' } },
  { key: 't', label: 't', what: 'Key takeaways', action: { kind: 'press', action: 'takeaways' } },
  { key: 'M', label: 'M', what: 'Read More', action: { kind: 'more' } },
  { key: 'r', label: 'r', what: 'Reload', action: { kind: 'reload' } },
  { key: '?', label: '?', what: 'These keys', action: { kind: 'help' } },
];

/** Keys the list does not own but that work beside them, for the help. */
export const OTHER_KEYS: readonly { label: string; what: string }[] = [
  { label: 'Enter', what: 'Open the story in the reader' },
  { label: 'Esc', what: 'Close the reader or a dialog' },
  { label: '/', what: 'Search' },
];

/** The action of a key press, or null: modified keys and keys typed into a field are not ours. */
export function listKeyAction(event: Pick<KeyboardEvent, 'key' | 'altKey' | 'ctrlKey' | 'metaKey'>): ListKeyAction | null {
  if (event.altKey || event.ctrlKey || event.metaKey) return null;
  return LIST_KEYS.find((k) => k.key === event.key)?.action ?? null;
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
