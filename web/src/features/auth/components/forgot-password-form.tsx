import { MailCheck } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Button, buttonClass } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { paths } from '@/config/paths';
import { validateForgotPassword } from '@/features/auth/validation';
import { useAuth } from '@/lib/auth';
import { toast } from '@/lib/toast';

export function ForgotPasswordForm() {
  const { resetPassword } = useAuth();
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = validateForgotPassword(email);
    if (invalid) return void toast({ ...invalid, variant: 'destructive' });
    setBusy(true);
    try {
      const { error } = await resetPassword(email.trim());
      if (error) {
        toast({ title: 'Password reset failed', description: error, variant: 'destructive' });
        return;
      }
      setSent(true);
    } catch {
      toast({ title: 'Reset error', description: 'An unexpected error occurred', variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  if (sent) {
    return (
      <div className="flex flex-col items-center gap-3 text-center">
        <MailCheck aria-hidden="true" className="h-10 w-10 text-indigo-600" />
        <h1 className="text-2xl font-bold">Check Your Email</h1>
        <p className="text-slate-600 dark:text-slate-400">
          If an account exists for <strong>{email.trim()}</strong>, a link to reset its password is on its way.
        </p>
        <Link to={paths.landing} className={buttonClass('primary')}>
          Back to Sign In
        </Link>
      </div>
    );
  }

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4" aria-label="Reset password">
      <h1 className="text-2xl font-bold">Forgot your password?</h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">Enter your e-mail and we will send you a link to choose a new one.</p>
      <Field label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <Button type="submit" disabled={busy}>
        {busy ? 'Sending…' : 'Send reset link'}
      </Button>
      <Link to={paths.landing} className="text-center text-sm text-indigo-600 hover:underline dark:text-indigo-400">
        Back to Sign In
      </Link>
    </form>
  );
}
