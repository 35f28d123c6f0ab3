import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { paths } from '@/config/paths';
import { validateRegister } from '@/features/auth/validation';
import { useAuth } from '@/lib/auth';
import { toast } from '@/lib/toast';

export function RegisterForm() {
  const { signUp } = useAuth();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const invalid = validateRegister(email, password, confirm);
    if (invalid) return void toast({ ...invalid, variant: 'destructive' });
    setBusy(true);
    try {
      const { error, session } = await signUp(email.trim(), password);
      if (error) {
        toast({ title: 'Registration failed', description: error, variant: 'destructive' });
        return;
      }
      toast({ title: 'Registration successful', description: 'Your account has been created' });
      // Without a session the service wants the address confirmed first: back to sign in.
      navigate(session ? paths.app : paths.landing);
    } catch {
      toast({ title: 'Registration error', description: 'An unexpected error occurred', variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate className="flex flex-col gap-4" aria-label="Create account">
      <Field label="Email" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
      <Field label="Password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      <Field
        label="Confirm password"
        type="password"
        autoComplete="new-password"
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
      />
      <Button type="submit" disabled={busy}>
        {busy ? 'Creating account…' : 'Create account'}
      </Button>
      <p className="text-center text-sm text-slate-600 dark:text-slate-400">
        Already have an account?{' '}
        <Link to={paths.landing} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
          Sign in
        </Link>
      </p>
    </form>
  );
}
