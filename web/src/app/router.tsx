import { Component, Suspense, useEffect, type ComponentType, type ReactNode } from 'react';
import { BrowserRouter, Navigate, Outlet, Route, Routes, useLocation } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { FullPageSpinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { documentTitle, titles, type TitleHandle } from '@/config/titles';
import { useAuth } from '@/lib/auth';
import { chunk, type Chunk } from '@/lib/chunk';
import { whenIdle } from '@/lib/idle';

// The router's declarative mode: the pages load lazily and name themselves, which is all the
// app asks of a router, and the data router's loaders, actions and fetchers (some 16 KB of
// the first download, gzipped) stay out of the entry chunk.

type Load = () => Promise<{ default: ComponentType }>;

const routeChunks: Record<string, Chunk> = {
  [paths.landing]: chunk(() => import('./routes/landing')),
  [paths.app]: chunk(() => import('./routes/app')),
  [paths.tvMode]: chunk(() => import('./routes/tv-mode')),
};

/**
 * Starts downloading the page's own chunk at once, next to the auth client, instead of after
 * the session is known; on the landing page, /app's chunk follows when the browser is idle.
 * Resolves once the page's chunk is there (or could not be had: the page then shows why).
 */
export function preloadRoute(pathname: string): Promise<unknown> {
  const own = routeChunks[pathname]?.preload();
  if (pathname === paths.landing) {
    whenIdle(() => void routeChunks[paths.app].preload());
  }
  return Promise.resolve(own).catch(() => {});
}

/** Shown instead of a blank page when a page fails, e.g. a chunk that no longer exists after a deploy. */
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

/** Catches a page's failure; keyed by the path, so going elsewhere tries again. */
class RouteErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    return this.state.failed ? <RouteError /> : this.props.children;
  }
}

/** Every route names itself in the browser's tab and history (config/titles.ts). */
function DocumentTitle({ handle }: { handle: TitleHandle }) {
  const { search } = useLocation();
  const title = documentTitle(handle, new URLSearchParams(search));
  useEffect(() => {
    document.title = title;
  }, [title]);
  return null;
}

/** A lazily loaded page with its title; the spinner shows while its chunk downloads. */
function page(handle: TitleHandle, from: Load | Chunk) {
  const { Component: Page } = typeof from === 'function' ? chunk(from) : from;
  return (
    <>
      <DocumentTitle handle={handle} />
      <Page />
    </>
  );
}

/** While the session is being read, nothing below can decide where to go. */
function AuthGate() {
  const { status } = useAuth();
  const { pathname } = useLocation();
  if (status === 'loading') return <FullPageSpinner />;
  return (
    <RouteErrorBoundary key={pathname}>
      <Suspense fallback={<FullPageSpinner />}>
        <Outlet />
      </Suspense>
    </RouteErrorBoundary>
  );
}

/** docs/product.md §2: protected routes send visitors without a session to /. */
function RequireAuth() {
  const { status } = useAuth();
  if (status !== 'signedIn') return <Navigate to={paths.landing} replace />;
  return <Outlet />;
}

// Made once: each page's lazy component must keep its identity across renders.
const pages = {
  landing: page(titles.landing, routeChunks[paths.landing]),
  register: page(titles.register, () => import('./routes/register')),
  forgotPassword: page(titles.forgotPassword, () => import('./routes/forgot-password')),
  resetPassword: page(titles.resetPassword, () => import('./routes/reset-password')),
  authCallback: page(titles.authCallback, () => import('./routes/auth-callback')),
  app: page(titles.app, routeChunks[paths.app]),
  subscribe: page(titles.subscribe, () => import('./routes/subscribe')),
  subscribeSuccess: page(titles.subscribeSuccess, () => import('./routes/subscribe-success')),
  upcomingFeatures: page(titles.upcomingFeatures, () => import('./routes/upcoming-features')),
  apiDocs: page(titles.apiDocs, () => import('./routes/api-docs')),
  weeklySummary: page(titles.weeklySummary, () => import('./routes/weekly-summary')),
  weeklySummaryDetail: page(titles.weeklySummaryDetail, () => import('./routes/weekly-summary-detail')),
  insights: page(titles.insights, () => import('./routes/insights')),
  trends: page(titles.trends, () => import('./routes/trends')),
  profile: page(titles.profile, () => import('./routes/profile')),
  tvMode: page(titles.tvMode, routeChunks[paths.tvMode]),
  alerts: page(titles.alerts, () => import('./routes/alerts')),
  unsubscribe: page(titles.unsubscribe, () => import('./routes/unsubscribe')),
  notFound: page(titles.notFound, () => import('./routes/not-found')),
};

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AuthGate />}>
        <Route path={paths.landing} element={pages.landing} />
        <Route path={paths.register} element={pages.register} />
        <Route path={paths.forgotPassword} element={pages.forgotPassword} />
        <Route path={paths.resetPassword} element={pages.resetPassword} />
        <Route path={paths.authCallback} element={pages.authCallback} />
        <Route path={paths.unsubscribe} element={pages.unsubscribe} />
        <Route element={<RequireAuth />}>
          <Route path={paths.app} element={pages.app} />
          <Route path={paths.subscribe} element={pages.subscribe} />
          <Route path={paths.subscribeSuccess} element={pages.subscribeSuccess} />
          <Route path={paths.upcomingFeatures} element={pages.upcomingFeatures} />
          <Route path={paths.apiDocs} element={pages.apiDocs} />
          <Route path={paths.weeklySummary} element={pages.weeklySummary} />
          <Route path="/weekly-summary/:id" element={pages.weeklySummaryDetail} />
          <Route path={paths.insights} element={pages.insights} />
          <Route path={paths.trends} element={pages.trends} />
          <Route path={paths.profile} element={pages.profile} />
          <Route path={paths.tvMode} element={pages.tvMode} />
          <Route path={paths.alerts} element={pages.alerts} />
        </Route>
        <Route path="*" element={pages.notFound} />
      </Route>
    </Routes>
  );
}

export function AppRouter() {
  return (
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  );
}
