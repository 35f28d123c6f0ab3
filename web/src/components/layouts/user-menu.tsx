import { ChevronDown, CircleUserRound } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { paths } from '@/config/paths';
import { useAuth } from '@/lib/auth';
import { startCheckout } from '@/lib/checkout';
import { toast } from '@/lib/toast';

const itemClass =
  'block w-full rounded px-3 py-2 text-left text-sm hover:bg-slate-100 focus:bg-slate-100 dark:hover:bg-slate-800 dark:focus:bg-slate-800';

export function UserMenu() {
  const { user, isSubscriber, signOut } = useAuth();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
        trigger.current?.focus();
      }
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  if (!user) return null;

  const onSignOut = async () => {
    setOpen(false);
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
    <div ref={root} className="relative">
      <button
        ref={trigger}
        type="button"
        aria-haspopup="true"
        aria-expanded={open}
        aria-controls={menuId}
        aria-label="User menu"
        onClick={() => setOpen((o) => !o)}
        className="inline-flex h-9 items-center gap-1 rounded-md px-2 hover:bg-slate-100 dark:hover:bg-slate-800"
      >
        <CircleUserRound aria-hidden="true" className="h-5 w-5" />
        <ChevronDown aria-hidden="true" className="hidden h-4 w-4 sm:block" />
      </button>
      {open && (
        <div
          id={menuId}
          className="absolute right-0 z-50 mt-2 w-64 rounded-lg border border-slate-200 bg-white p-1 shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <p className="truncate px-3 py-2 text-sm text-slate-500 dark:text-slate-400" title={user.email}>
            {user.email}
          </p>
          <hr className="my-1 border-slate-200 dark:border-slate-700" />
          <ul className="flex flex-col" onClick={() => setOpen(false)}>
            {!isSubscriber && (
              <>
                <li>
                  <Link className={itemClass} to={paths.subscribe}>
                    Get Premium
                  </Link>
                </li>
                <li>
                  <button type="button" className={itemClass} onClick={() => void startCheckout()}>
                    Test Stripe
                  </button>
                </li>
                <li className="md:hidden">
                  <button type="button" className={itemClass} onClick={() => void startCheckout()}>
                    Test checkout ({user.id.slice(0, 8)})
                  </button>
                </li>
              </>
            )}
            <li>
              <Link className={itemClass} to={paths.upcomingFeatures}>
                Upcoming Features
              </Link>
            </li>
            <li>
              <Link className={itemClass} to={paths.weeklySummary}>
                Weekly AI Summary
              </Link>
            </li>
            <li>
              <Link className={itemClass} to={paths.profile}>
                Profile
              </Link>
            </li>
            <li>
              <button type="button" className={itemClass} onClick={() => void onSignOut()}>
                Sign out
              </button>
            </li>
          </ul>
        </div>
      )}
    </div>
  );
}
