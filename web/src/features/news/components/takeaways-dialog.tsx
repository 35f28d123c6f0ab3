import * as Dialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import { Spinner } from '@/components/ui/spinner';
import { useTakeaways } from '@/features/news/api/get-takeaways';
import type { NewsItem } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';

/** The server's key takeaways for one item (subscribers, feed only), drawn as it sends them. */
export function TakeawaysDialog({ item, onClose }: { item: NewsItem | null; onClose: () => void }) {
  const { user } = useAuth();
  const takeaways = useTakeaways(item?.id ?? null, user?.id);
  return (
    <Dialog.Root open={Boolean(item)} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/50" />
        <Dialog.Content className="fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[calc(100%-2rem)] max-w-2xl -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl bg-white p-6 shadow-xl dark:bg-slate-900">
          <Dialog.Title className="text-xl font-bold">Personalized Key Takeaways</Dialog.Title>
          <Dialog.Description className="mt-1 text-sm text-slate-600 dark:text-slate-400">{item?.title ?? ''}</Dialog.Description>
          {takeaways.isPending && <Spinner label="Loading key takeaways" />}
          {takeaways.isError && (
            <p role="alert" className="mt-4 text-sm text-red-700 dark:text-red-400">
              {takeaways.error.message}
            </p>
          )}
          {takeaways.data && (
            <>
              <ul className="mt-4 grid gap-3 sm:grid-cols-3">
                {takeaways.data.cards.map((card) => (
                  <li key={card.title} className="rounded-lg border border-slate-200 p-4 dark:border-slate-700">
                    <h3 className="font-semibold">{card.title}</h3>
                    <ul className="mt-2 flex flex-wrap gap-1" aria-label="Tags">
                      {card.tags.map((tag) => (
                        <li key={tag} className="rounded-full bg-indigo-100 px-2 py-0.5 text-xs text-indigo-800 dark:bg-indigo-900/50 dark:text-indigo-200">
                          {tag}
                        </li>
                      ))}
                    </ul>
                    <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">{card.description}</p>
                  </li>
                ))}
              </ul>
              <p className="mt-4 text-sm font-medium">{takeaways.data.summary}</p>
              <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
                {takeaways.data.personalized
                  ? 'Ranked by the professional resume in your profile.'
                  : 'Add a professional resume to your profile to rank these by your work.'}
              </p>
            </>
          )}
          <div className="mt-5 flex justify-end">
            <Dialog.Close className="inline-flex h-10 items-center rounded-md bg-indigo-600 px-4 text-sm font-medium text-white hover:bg-indigo-700">
              Close
            </Dialog.Close>
          </div>
          <Dialog.Close aria-label="Close" className="absolute right-3 top-3 rounded p-1 opacity-70 hover:opacity-100">
            <X aria-hidden="true" className="h-4 w-4" />
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
