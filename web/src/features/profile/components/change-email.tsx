import { useState, type FormEvent } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Field } from '@/components/ui/field';
import { useAuth } from '@/lib/auth';
import { toast } from '@/lib/toast';

/**
 * Changing the account's e-mail address. The server mails a link to the new address and,
 * unless it is set for one confirmation, to the current one; the address changes once they
 * are followed, so until then the page says which address waits for confirmation.
 */
export function ChangeEmail() {
  const { user, changeEmail } = useAuth();
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const pending = (user as { new_email?: string } | null)?.new_email;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const wanted = email.trim();
    if (!wanted) {
      toast({ title: 'Email required', description: 'Please enter your new email address', variant: 'destructive' });
      return;
    }
    setBusy(true);
    try {
      const { error } = await changeEmail(wanted);
      if (error) {
        toast({ title: 'Email change failed', description: error, variant: 'destructive' });
        return;
      }
      setEmail('');
      toast({ title: 'Check Your Email', description: `Follow the links we sent to confirm ${wanted.toLowerCase()}.` });
    } catch {
      toast({ title: 'Email change failed', description: 'Failed to change e-mail', variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card className="flex flex-col gap-3">
      <h2 className="text-lg font-semibold">Change e-mail</h2>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Signed in as <span className="font-medium">{user?.email}</span>
      </p>
      {pending && (
        <p role="status" className="text-sm text-slate-600 dark:text-slate-400">
          Waiting for confirmation of {pending}
        </p>
      )}
      <form onSubmit={submit} className="flex flex-col gap-3" noValidate>
        <Field label="New e-mail" type="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        <div>
          <Button type="submit" disabled={busy}>
            {busy ? 'Sending…' : 'Change e-mail'}
          </Button>
        </div>
      </form>
    </Card>
  );
}
