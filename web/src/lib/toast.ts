// A tiny toast store (docs/product.md §9): one toast at a time; a dismissed toast stays mounted for its
// exit animation and is dropped after TOAST_REMOVE_DELAY.
import { useSyncExternalStore } from 'react';

export const TOAST_LIMIT = 1;
export const TOAST_REMOVE_DELAY = 1_000_000;
export const TOAST_DURATION = 5000;

export interface ToastInput {
  title: string;
  description?: string;
  variant?: 'default' | 'destructive';
  /**
   * A button in the toast ("Undo"); `altText` says how to do the same without it, and `key`
   * names it (`data-action`) for the key that presses it.
   */
  action?: { label: string; altText: string; onClick: () => void; key?: string };
}

export interface ToastEntry extends ToastInput {
  id: number;
  open: boolean;
}

type Listener = () => void;

let toasts: ToastEntry[] = [];
let nextId = 1;
const listeners = new Set<Listener>();
const removals = new Map<number, ReturnType<typeof setTimeout>>();

function emit(next: ToastEntry[]) {
  toasts = next;
  listeners.forEach((listener) => listener());
}

export function toast(input: ToastInput): number {
  const id = nextId++;
  emit([{ ...input, id, open: true }, ...toasts].slice(0, TOAST_LIMIT));
  return id;
}

export function dismissToast(id: number) {
  emit(toasts.map((t) => (t.id === id ? { ...t, open: false } : t)));
  if (!removals.has(id)) {
    removals.set(
      id,
      setTimeout(() => {
        removals.delete(id);
        emit(toasts.filter((t) => t.id !== id));
      }, TOAST_REMOVE_DELAY),
    );
  }
}

function subscribe(listener: Listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useToasts(): ToastEntry[] {
  return useSyncExternalStore(subscribe, () => toasts, () => toasts);
}
