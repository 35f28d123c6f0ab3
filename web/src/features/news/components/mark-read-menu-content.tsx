import * as Menu from '@radix-ui/react-dropdown-menu';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { markReadBefore, putReadBefore } from '@/features/news/api/read-before';
import type { MarkOlderBody } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';
import { useMenuTabOut } from '@/lib/focus';
import { toast } from '@/lib/toast';
import { UNREAD_KEY } from '@/lib/unread';
import { useFirstOpenFocus, type DeferredProps } from '@/components/ui/deferred';
import { menuContentClass, menuItemClass } from '@/components/ui/menu';
import { MarkReadButton, useOpener } from './mark-read-trigger';

const CHOICES: { olderThan: MarkOlderBody['olderThan']; label: string }[] = [
  { olderThan: 'all', label: 'All stories' },
  { olderThan: 'day', label: 'Older than a day' },
  { olderThan: 'week', label: 'Older than a week' },
];

const left = (unread: number) => `${unread} ${unread === 1 ? 'story' : 'stories'} left to read.`;

/**
 * "Mark as read" over the feed: every story, or those older than a day or a week, in one request
 * the server keeps as a cut-off (stories with a mark keep it). A toast offers Undo for as long
 * as it shows, which puts the previous cut-off back.
 */
export default function MarkReadMenuContent({ openedWith }: DeferredProps) {
  const { user } = useAuth();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(openedWith !== undefined);
  const onFirstFocus = useFirstOpenFocus(openedWith);
  const { trigger, onKeyDown, onCloseAutoFocus } = useMenuTabOut(setOpen);
  const reread = () => Promise.all([queryClient.invalidateQueries({ queryKey: ['news'] }), queryClient.invalidateQueries({ queryKey: UNREAD_KEY })]);
  useOpener(user ? () => setOpen(true) : null);
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
      <Menu.Trigger asChild>
        <MarkReadButton ref={trigger} />
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content
          align="end"
          sideOffset={6}
          loop
          onKeyDown={onKeyDown}
          onFocus={onFirstFocus}
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
