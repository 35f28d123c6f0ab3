import { useEffect, useState, type ComponentType } from 'react';
import { createBrowserRouter, Navigate, Outlet, useLocation, useMatches, type RouteObject } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { buttonClass } from '@/components/ui/button';
import { FullPageSpinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { documentTitle, titles, type TitleHandle } from '@/config/titles';
import { useAuth } from '@/lib/auth';

type Module = { default: ComponentType };
type Load = () => Promise<Module>;
// Every page is its own chunk so the first visit downloads only the shell.
const page = (load: Load): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

const loaders: Record<string, Load> = {
  [paths.landing]: () => import('./routes/landing'),
  [paths.app]: () => import('./routes/app'),
  [paths.tvMode]: () => import('./routes/tv-mode'),
};

/**
 * Starts downloading the page's own chunk at once, next to the auth client, instead of after
 * the session is known; on the landing page, /app's chunk follows when the browser is idle.
 */
export function preloadRoute(pathname: string) {
  void loaders[pathname]?.();
  if (pathname === paths.landing) {
    const later = window.requestIdleCallback ?? ((fn: () => void) => window.setTimeout(fn, 1));
    later(() => void loaders[paths.app]());
  }
}

/** Shown instead of the router's developer screen when a page fails, e.g. a chunk that no longer exists after a deploy. */
function RouteError() {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 px-4 text-center">
      <h1 className="text-2xl font-bold">Something went wrong</h1>
      <p className="text-slate-600 dark:text-slate-400">This page could not be shown. Reloading usually fixes it.</p>
      <button type="button" className={buttonClass('primary')} onClick={() => window.location.reload()}>
        Reload
      </button>
    </main>
  );
}

/** Every route names itself in the browser's tab and history (config/titles.ts). */
function DocumentTitle() {
  const matches = useMatches();
  const { search } = useLocation();
  const handle = matches.at(-1)?.handle as TitleHandle | undefined;
  const title = documentTitle(handle, new URLSearchParams(search));
  useEffect(() => {
    document.title = title;
  }, [title]);
  return null;
}

/** While the session is being read, nothing below can decide where to go. */
function AuthGate() {
  const { status } = useAuth();
  return (
    <>
      <DocumentTitle />
      {status === 'loading' ? <FullPageSpinner /> : <Outlet />}
    </>
  );
}

/** Spec 2: protected routes send visitors without a session to /. */
function RequireAuth() {
  const { status } = useAuth();
  if (status !== 'signedIn') return <Navigate to={paths.landing} replace />;
  return <Outlet />;
}

export const routes: RouteObject[] = [
  {
    element: <AuthGate />,
    hydrateFallbackElement: <FullPageSpinner />,
    errorElement: <RouteError />,
    children: [
      { path: paths.landing, handle: titles.landing, ...page(loaders[paths.landing]) },
      { path: paths.register, handle: titles.register, ...page(() => import('./routes/register')) },
      { path: paths.forgotPassword, handle: titles.forgotPassword, ...page(() => import('./routes/forgot-password')) },
      { path: paths.resetPassword, handle: titles.resetPassword, ...page(() => import('./routes/reset-password')) },
      { path: paths.authCallback, handle: titles.authCallback, ...page(() => import('./routes/auth-callback')) },
      {
        element: <RequireAuth />,
        children: [
          { path: paths.app, handle: titles.app, ...page(loaders[paths.app]) },
          { path: paths.subscribe, handle: titles.subscribe, ...page(() => import('./routes/subscribe')) },
          { path: paths.subscribeSuccess, handle: titles.subscribeSuccess, ...page(() => import('./routes/subscribe-success')) },
          { path: paths.upcomingFeatures, handle: titles.upcomingFeatures, ...page(() => import('./routes/upcoming-features')) },
          { path: paths.apiDocs, handle: titles.apiDocs, ...page(() => import('./routes/api-docs')) },
          { path: paths.weeklySummary, handle: titles.weeklySummary, ...page(() => import('./routes/weekly-summary')) },
          { path: '/weekly-summary/:id', handle: titles.weeklySummaryDetail, ...page(() => import('./routes/weekly-summary-detail')) },
          { path: paths.profile, handle: titles.profile, ...page(() => import('./routes/profile')) },
          { path: paths.tvMode, handle: titles.tvMode, ...page(loaders[paths.tvMode]) },
        ],
      },
      { path: '*', handle: titles.notFound, ...page(() => import('./routes/not-found')) },
    ],
  },
];

export function AppRouter() {
  const [router] = useState(() => createBrowserRouter(routes));
  return <RouterProvider router={router} />;
}
