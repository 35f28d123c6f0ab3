import { useLocation, Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';

export default function NotFoundRoute() {
  const { pathname } = useLocation();
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-4 px-4 text-center">
      <h1 className="text-3xl font-bold">404 Page Not Found</h1>
      <p className="text-slate-600 dark:text-slate-400">
        Nothing lives at <code className="rounded bg-slate-100 px-1 dark:bg-slate-800">{pathname}</code>.
      </p>
      <p className="max-w-md text-sm text-slate-500 dark:text-slate-400">
        Developer hint: the routes are declared in <code>web/src/app/router.tsx</code> and their paths in{' '}
        <code>web/src/config/paths.ts</code>.
      </p>
      <Link to={paths.landing} className={buttonClass('primary')}>
        Go home
      </Link>
    </main>
  );
}
