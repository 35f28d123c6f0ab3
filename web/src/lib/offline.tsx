// Reading without a network (web/README.md "Offline"): the service worker that vite-plugin-pwa
// builds (vite.config.ts) is registered from the signed-in app, which then says plainly when the
// network is gone and offers a new version once one is installed. Marks made offline wait in
// the pending-marks queue and are sent when the network returns.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import { useRegisterSW } from 'virtual:pwa-register/react';
import { API_CACHE, useAuth } from '@/lib/auth';

const CACHE_OWNER_KEY = 'radarOfflineOwner';

function subscribe(onChange: () => void) {
  window.addEventListener('online', onChange);
  window.addEventListener('offline', onChange);
  return () => {
    window.removeEventListener('online', onChange);
    window.removeEventListener('offline', onChange);
  };
}

/** Whether the browser says it has a network. */
export function useOnline(): boolean {
  return useSyncExternalStore(subscribe, () => navigator.onLine, () => true);
}

/**
 * The answers kept offline belong to one account: when another one signs in (without the
 * first signing out), they are dropped before anything is read from them.
 */
function useCacheOwner() {
  const { user } = useAuth();
  const id = user?.id;
  useEffect(() => {
    if (!id || localStorage.getItem(CACHE_OWNER_KEY) === id) return;
    localStorage.setItem(CACHE_OWNER_KEY, id);
    if ('caches' in window) void caches.delete(API_CACHE);
  }, [id]);
}

/**
 * When a worker first takes the page, what the page shows was read before it could keep
 * it: read it again, through the worker, so it is there offline.
 */
function useKeepWhatIsShown() {
  const queryClient = useQueryClient();
  useEffect(() => {
    const container = navigator.serviceWorker;
    if (!container) return;
    const again = () => void queryClient.refetchQueries({ type: 'active' });
    container.addEventListener('controllerchange', again);
    return () => container.removeEventListener('controllerchange', again);
  }, [queryClient]);
}

/** The offline line and the new-version offer, under the header of every signed-in page. */
export function OfflineStatus() {
  useCacheOwner();
  useKeepWhatIsShown();
  const online = useOnline();
  const {
    needRefresh: [needRefresh],
    updateServiceWorker,
  } = useRegisterSW();
  if (!online) {
    return (
      <p role="status" data-testid="offline" data-first-paint="omit" className="bg-amber-100 px-4 py-2 text-center text-sm text-amber-950 dark:bg-amber-900 dark:text-amber-50">
        Offline: showing what was loaded. Your changes are sent when the network is back.
      </p>
    );
  }
  if (needRefresh) {
    return (
      <p role="status" data-first-paint="omit" className="flex items-center justify-center gap-3 bg-indigo-50 px-4 py-2 text-sm text-indigo-950 dark:bg-indigo-950 dark:text-indigo-50">
        A new version of Radar is ready.
        <button type="button" onClick={() => void updateServiceWorker(true)} className="rounded-md bg-indigo-600 px-3 py-1 font-medium text-white hover:bg-indigo-700">
          Reload
        </button>
      </p>
    );
  }
  return null;
}
