import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { paths } from '@/config/paths';
import { validateSignIn } from '@/features/auth/validation';
import { useAuth } from '@/lib/auth';
import { toast } from '@/lib/toast';

export function SignInForm() {
  const { signIn, signInWithGoogle } = useAuth();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = validateSignIn(email, password);
    if (invalid) return void toast({ ...invalid, variant: 'destructive' });
    setBusy(true);
    try {
      const { error } = await signIn(email.trim(), password);
      if (error) {
        toast({ title: 'Sign in failed', description: error, variant: 'destructive' });
        return;
      }
      toast({ title: 'Welcome back!' });
      navigate(paths.app);
    } catch {
      toast({ title: 'Sign in error', description: 'An unexpected error occurred', variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  const google = async () => {
    const { error } = await signInWithGoogle();
    if (error) toast({ title: 'Sign in failed', description: error, variant: 'destructive' });
  };

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4" aria-label="Sign in">
      <Field label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <Field
        label="Password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <div className="text-right text-sm">
        <Link to={paths.forgotPassword} className="text-indigo-600 hover:underline dark:text-indigo-400">
          Forgot password?
        </Link>
      </div>
      <Button type="submit" disabled={busy}>
        {busy ? 'Signing in…' : 'Sign In'}
      </Button>
      <Button variant="outline" onClick={() => void google()}>
        Continue with Google
      </Button>
      <p className="text-center text-sm text-slate-600 dark:text-slate-400">
        No account yet?{' '}
        <Link to={paths.register} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
          Sign up
        </Link>
      </p>
    </form>
  );
}
