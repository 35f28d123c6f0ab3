import * as Menu from '@radix-ui/react-dropdown-menu';
import { useQueryClient } from '@tanstack/react-query';
import { CheckCheck } from 'lucide-react';
import { useEffect, useState } from 'react';
import { markReadBefore, putReadBefore } from '@/features/news/api/read-before';
import type { MarkOlderBody } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';
import { useMenuTabOut } from '@/lib/focus';
import { toast } from '@/lib/toast';
import { UNREAD_KEY } from '@/lib/unread';
import { menuContentClass, menuItemClass } from '@/components/ui/menu';

const CHOICES: { olderThan: MarkOlderBody['olderThan']; label: string }[] = [
  { olderThan: 'all', label: 'All stories' },
  { olderThan: 'day', label: 'Older than a day' },
  { olderThan: 'week', label: 'Older than a week' },
];


/** The menus on screen, each as how to open it (there is at most one: the feed's). */
const openers = new Set<() => void>();

/** Opens "Mark feed as read" (the `A` key) when it is on screen; answers whether it was. */
export function openMarkReadMenu(): boolean {
  openers.forEach((open) => open());
  return openers.size > 0;
}

const left = (unread: number) => `${unread} ${unread === 1 ? 'story' : 'stories'} left to read.`;

/**
 * "Mark as read" over the feed: every story, or those older than a day or a week, in one request
 * the server keeps as a cut-off (stories with a mark keep it). A toast offers Undo for as long
 * as it shows, which puts the previous cut-off back.
 */
export function MarkReadMenu() {
  const { user } = useAuth();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const { trigger, onKeyDown, onCloseAutoFocus } = useMenuTabOut(setOpen);
  const reread = () => Promise.all([queryClient.invalidateQueries({ queryKey: ['news'] }), queryClient.invalidateQueries({ queryKey: UNREAD_KEY })]);
  useEffect(() => {
    if (!user) return;
    const opener = () => setOpen(true);
    openers.add(opener);
    return () => {
      openers.delete(opener);
    };
  }, [user]);
  const failed = () => toast({ title: 'Could not mark as read', description: 'Check your connection and try again.', variant: 'destructive' });

  const choose = async (olderThan: MarkOlderBody['olderThan']) => {
    try {
      const done = await markReadBefore(olderThan);
      await reread();
      toast({
        title: 'Marked as read',
        description: left(done.unread),
        action: {
          key: 'undo-mark-read',
          label: 'Undo',
          altText: 'Undo marking as read',
          onClick: () => {
            putReadBefore(done.previous ?? null).then(async (undone) => {
              await reread();
              toast({ title: 'Undone', description: left(undone.unread) });
            }, failed);
          },
        },
      });
    } catch {
      failed();
    }
  };

  // A visitor's feed is the newest few (the free allowance): nothing of theirs to mark.
  if (!user) return null;
  return (
    <Menu.Root modal={false} open={open} onOpenChange={setOpen}>
      <Menu.Trigger
        ref={trigger}
        data-action="mark-feed-read"
        className="inline-flex h-9 items-center gap-1.5 rounded-md px-2 text-xs font-medium text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"
      >
        <CheckCheck aria-hidden="true" className="h-4 w-4" />
        <span className="sr-only sm:not-sr-only">Mark feed as read</span>
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content
          align="end"
          sideOffset={6}
          loop
          onKeyDown={onKeyDown}
          onCloseAutoFocus={onCloseAutoFocus}
          className={`w-52 ${menuContentClass}`}
        >
          {CHOICES.map(({ olderThan, label }) => (
            <Menu.Item key={olderThan} className={menuItemClass} onSelect={() => void choose(olderThan)}>
              {label}
            </Menu.Item>
          ))}
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}
