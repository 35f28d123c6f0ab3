import * as Toast from '@radix-ui/react-toast';
import { X } from 'lucide-react';
import { dismissToast, TOAST_DURATION, useToasts } from '@/lib/toast';

// docs/product.md §9: 5 s display, swipe right past 50 px to dismiss, F8 focuses the region, 420 px wide.
export function Toaster() {
  const toasts = useToasts();
  return (
    <Toast.Provider duration={TOAST_DURATION} swipeDirection="right" swipeThreshold={50}>
      {toasts.map((t) => (
        <Toast.Root
          key={t.id}
          open={t.open}
          onOpenChange={(open) => {
            if (!open) dismissToast(t.id);
          }}
          className={`toast-root relative flex w-full items-start gap-3 rounded-lg border p-4 pr-10 shadow-lg ${
            t.variant === 'destructive'
              ? 'border-red-700 bg-red-600 text-white'
              : 'border-slate-200 bg-white text-slate-900 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100'
          }`}
        >
          <div className="flex flex-col gap-1">
            <Toast.Title className="text-sm font-semibold">{t.title}</Toast.Title>
            {t.description && <Toast.Description className="text-sm opacity-90">{t.description}</Toast.Description>}
            {t.action && (
              <Toast.Action altText={t.action.altText} data-action={t.action.key} onClick={t.action.onClick} className="mt-1 self-start rounded-md border border-current px-3 py-1 text-sm font-medium">
                {t.action.label}
              </Toast.Action>
            )}
          </div>
          <Toast.Close aria-label="Close notification" className="absolute right-2 top-2 rounded p-1 opacity-70 hover:opacity-100">
            <X aria-hidden="true" className="h-4 w-4" />
          </Toast.Close>
        </Toast.Root>
      ))}
      <Toast.Viewport
        hotkey={['F8']}
        className="fixed bottom-0 right-0 z-[100] m-0 flex w-full max-w-[420px] list-none flex-col gap-2 p-4 outline-none"
      />
    </Toast.Provider>
  );
}
