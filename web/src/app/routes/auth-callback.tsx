import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { useAuth } from '@/lib/auth';

export const CALLBACK_DELAY_MS = 500;

export default function AuthCallbackRoute() {
  const { session } = useAuth();
  const navigate = useNavigate();
  const signedIn = Boolean(session);
  useEffect(() => {
    const timer = setTimeout(() => {
      if (signedIn) {
        window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
        navigate(paths.app, { replace: true });
      } else navigate(paths.landing, { replace: true });
    }, CALLBACK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [signedIn, navigate]);
  return (
    <div className="flex min-h-screen flex-col items-center justify-center gap-2">
      <Spinner label="Processing authentication" />
      <p className="text-slate-600 dark:text-slate-400">Processing authentication…</p>
    </div>
  );
}
