import { CheckCircle2 } from 'lucide-react';
import { useEffect, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { checkRecoveryLink } from '@/features/auth/recovery-link';
import { validateResetPassword } from '@/features/auth/validation';
import { initialUrlHash, useAuth } from '@/lib/auth';
import { toast } from '@/lib/toast';

export const RESET_REDIRECT_MS = 2000;

export function ResetPasswordForm() {
  const { session, updatePassword } = useAuth();
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  // The check is made once, on arrival: the session appears and the fragment goes as the client starts.
  const [check] = useState(() => checkRecoveryLink(initialUrlHash, Boolean(session)));

  useEffect(() => {
    if (check.ok) return;
    toast({ title: check.title, description: check.description, variant: 'destructive' });
    const timer = setTimeout(() => navigate(paths.forgotPassword, { replace: true }), RESET_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [check, navigate]);

  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => navigate(paths.landing, { replace: true }), RESET_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [done, navigate]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = validateResetPassword(password, confirm);
    if (invalid) return void toast({ ...invalid, variant: 'destructive' });
    setBusy(true);
    try {
      const { error } = await updatePassword(password);
      if (error) {
        toast({ title: 'Password reset failed', description: error, variant: 'destructive' });
        return;
      }
      toast({ title: 'Password updated', description: 'Your password has been changed.' });
      setDone(true);
    } catch (error) {
      toast({ title: 'Password reset failed', description: (error as Error).message, variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  if (!check.ok) return <Spinner label="Redirecting" />;

  if (done) {
    return (
      <div className="flex flex-col items-center gap-3 text-center">
        <CheckCircle2 aria-hidden="true" className="h-10 w-10 text-green-600" />
        <h1 className="text-2xl font-bold">Password Reset Successful</h1>
        {/* The recovery link signed the reader in, so / takes them on to their feed. */}
        <p className="text-slate-600 dark:text-slate-400">You are signed in with your new password. Taking you to your feed…</p>
      </div>
    );
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4" aria-label="Choose a new password">
      <h1 className="text-2xl font-bold">Choose a new password</h1>
      {/* Lets password managers file the new password under the right account. */}
      <input type="email" name="username" autoComplete="username" value={session?.user.email ?? ''} readOnly hidden />
      <Field label="New password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      <Field
        label="Confirm new password"
        type="password"
        autoComplete="new-password"
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
      />
      <Button type="submit" disabled={busy}>
        {busy ? 'Saving…' : 'Reset password'}
      </Button>
    </form>
  );
}
