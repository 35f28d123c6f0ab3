import { deferred, openedBy, type OpenedWith } from '@/components/ui/deferred';
import { useAuth } from '@/lib/auth';
import { MarkReadButton, useOpener } from './mark-read-trigger';

const Menu = deferred(() => import('./mark-read-menu-content').then((m) => m.default));

/** Until the menu's code is there: the trigger, which the `A` key presses too. */
function Placeholder({ open }: { open: (how: OpenedWith) => void }) {
  useOpener(() => open('keyboard'));
  return <MarkReadButton aria-haspopup="menu" aria-expanded={false} onClick={(e) => open(openedBy(e))} />;
}

/**
 * "Mark as read" over the feed (the menu is in `mark-read-menu-content`): a visitor's feed
 * is the newest few (the free allowance), with nothing of theirs to mark. The menu's code
 * arrives after the first story (see `deferred`).
 */
export function MarkReadMenu() {
  const { user } = useAuth();
  if (!user) return null;
  return <Menu placeholder={Placeholder} />;
}
