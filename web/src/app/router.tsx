import { useState, type ComponentType } from 'react';
import { createBrowserRouter, Navigate, Outlet, type RouteObject } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { buttonClass } from '@/components/ui/button';
import { FullPageSpinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { useAuth } from '@/lib/auth';

type Module = { default: ComponentType };
// Every page is its own chunk so the first visit downloads only the shell.
const page = (load: () => Promise<Module>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
});

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

/** While the session is being read, nothing below can decide where to go. */
function AuthGate() {
  const { status } = useAuth();
  if (status === 'loading') return <FullPageSpinner />;
  return <Outlet />;
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
      { path: paths.landing, ...page(() => import('./routes/landing')) },
      { path: paths.register, ...page(() => import('./routes/register')) },
      { path: paths.forgotPassword, ...page(() => import('./routes/forgot-password')) },
      { path: paths.resetPassword, ...page(() => import('./routes/reset-password')) },
      { path: paths.authCallback, ...page(() => import('./routes/auth-callback')) },
      {
        element: <RequireAuth />,
        children: [
          { path: paths.app, ...page(() => import('./routes/app')) },
          { path: paths.subscribe, ...page(() => import('./routes/subscribe')) },
          { path: paths.subscribeSuccess, ...page(() => import('./routes/subscribe-success')) },
          { path: paths.upcomingFeatures, ...page(() => import('./routes/upcoming-features')) },
          { path: paths.apiDocs, ...page(() => import('./routes/api-docs')) },
          { path: paths.weeklySummary, ...page(() => import('./routes/weekly-summary')) },
          { path: '/weekly-summary/:id', ...page(() => import('./routes/weekly-summary-detail')) },
          { path: paths.profile, ...page(() => import('./routes/profile')) },
          { path: paths.tvMode, ...page(() => import('./routes/tv-mode')) },
        ],
      },
      { path: '*', ...page(() => import('./routes/not-found')) },
    ],
  },
];

export function AppRouter() {
  const [router] = useState(() => createBrowserRouter(routes));
  return <RouterProvider router={router} />;
}
