import * as Menu from '@radix-ui/react-dropdown-menu';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { paths } from '@/config/paths';
import { useAlertList } from '@/lib/alerts';
import { useAuth } from '@/lib/auth';
import { startCheckout } from '@/lib/checkout';
import { useMenuTabOut } from '@/lib/focus';
import { toast } from '@/lib/toast';
import { useFirstOpenFocus, type DeferredProps } from '@/components/ui/deferred';
import { menuContentClass, menuItemClass } from '@/components/ui/menu';
import { UserMenuButton } from './user-menu-trigger';

// Radix's menu is the WAI-ARIA menu pattern: arrows, Home/End and type-ahead move between
// items, Enter and Space choose, Esc closes and gives focus back to the trigger. Not modal,
// so the page behind is not hidden from assistive technology and a click elsewhere closes
// it; Radix keeps Tab inside a menu, so Tab and Shift+Tab are handled as the pattern says
// (`useMenuTabOut`): the menu closes and focus goes on to the control after (before) the trigger.

/** The menu itself, loaded once the page has drawn (see `UserMenu`). */
export default function UserMenuContent({ openedWith }: DeferredProps) {
  const { user, isSubscriber, signOut } = useAuth();
  const navigate = useNavigate();
  const [open, setOpen] = useState(openedWith !== undefined);
  const onFirstFocus = useFirstOpenFocus(openedWith);
  const { trigger, onKeyDown, onCloseAutoFocus } = useMenuTabOut(setOpen);
  const unseen = useAlertList().data?.unseen ?? 0;

  if (!user) return null;

  const onSignOut = async () => {
    try {
      const { error } = await signOut();
      if (error) throw new Error(error);
      toast({ title: 'Signed out', description: 'You have been successfully signed out' });
      navigate(paths.landing);
    } catch {
      toast({ title: 'Sign out failed', description: 'Failed to sign out. Please try again.', variant: 'destructive' });
    }
  };

  return (
    <Menu.Root modal={false} open={open} onOpenChange={setOpen}>
      <Menu.Trigger asChild>
        <UserMenuButton ref={trigger} />
      </Menu.Trigger>
      {/* Not portalled: the open menu stays inside the header's landmark. */}
      <Menu.Content
          align="end"
          sideOffset={8}
          loop
          onKeyDown={onKeyDown}
          onFocus={onFirstFocus}
          onCloseAutoFocus={onCloseAutoFocus}
          className={`w-64 ${menuContentClass}`}
        >
          <Menu.Label className="truncate px-3 py-2 text-sm text-slate-500 dark:text-slate-400" title={user.email}>
            {user.email}
          </Menu.Label>
          <Menu.Separator className="my-1 h-px bg-slate-200 dark:bg-slate-700" />
          {!isSubscriber && (
            <>
              <Menu.Item asChild className={menuItemClass}>
                <Link to={paths.subscribe}>Get Premium</Link>
              </Menu.Item>
              <Menu.Item className={menuItemClass} onSelect={() => void startCheckout()}>
                Test Stripe
              </Menu.Item>
              <Menu.Item className={`${menuItemClass} md:hidden`} onSelect={() => void startCheckout()}>
                Test checkout ({user.id.slice(0, 8)})
              </Menu.Item>
            </>
          )}
          <Menu.Item asChild className={menuItemClass}>
            <Link to={paths.upcomingFeatures}>Upcoming Features</Link>
          </Menu.Item>
          <Menu.Item asChild className={menuItemClass}>
            <Link to={paths.weeklySummary}>Weekly AI Summary</Link>
          </Menu.Item>
          {isSubscriber && (
            <Menu.Item asChild className={menuItemClass}>
              <Link to={paths.insights}>Insights</Link>
            </Menu.Item>
          )}
          <Menu.Item asChild className={menuItemClass}>
            <Link to={paths.alerts}>{unseen > 0 ? `Alerts (${unseen} new)` : 'Alerts'}</Link>
          </Menu.Item>
          <Menu.Item asChild className={menuItemClass}>
            <Link to={paths.trends}>Trends</Link>
          </Menu.Item>
          <Menu.Item asChild className={menuItemClass}>
            <Link to={paths.profile}>Profile</Link>
          </Menu.Item>
          <Menu.Item className={menuItemClass} onSelect={() => void onSignOut()}>
            Sign out
          </Menu.Item>
      </Menu.Content>
    </Menu.Root>
  );
}
