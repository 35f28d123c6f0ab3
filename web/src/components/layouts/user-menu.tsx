import { deferred, openedBy, type OpenedWith } from '@/components/ui/deferred';
import { useAuth } from '@/lib/auth';
import { UserMenuButton } from './user-menu-trigger';

const Menu = deferred(() => import('./user-menu-content').then((m) => m.default));

function Placeholder({ open }: { open: (how: OpenedWith) => void }) {
  return <UserMenuButton aria-haspopup="menu" aria-expanded={false} onClick={(e) => open(openedBy(e))} />;
}

/**
 * The signed-in reader's menu. Its code (Radix's menu and its positioning, about a third of
 * the app shell's bytes) is not needed for the first story, so it arrives after it; until
 * then the trigger stands alone, and a press on it opens the menu once it is there.
 */
export function UserMenu() {
  const { user } = useAuth();
  if (!user) return null;
  return <Menu placeholder={Placeholder} />;
}
