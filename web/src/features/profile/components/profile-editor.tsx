import { useId, useState, type ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { StateMessage } from '@/components/ui/state-message';
import { useProfile } from '@/features/profile/api/get-profile';
import { useUpdateProfile } from '@/features/profile/api/update-profile';
import { useAuth } from '@/lib/auth';
import { toast } from '@/lib/toast';

function Avatar({ url, email }: { url?: string; email: string }) {
  if (url) return <img src={url} alt="" className="h-16 w-16 rounded-full object-cover" />;
  return (
    <span aria-hidden="true" className="flex h-16 w-16 items-center justify-center rounded-full bg-indigo-600 text-2xl font-bold text-white">
      {email.charAt(0).toUpperCase() || '?'}
    </span>
  );
}

/** View → edit → save (back to view) or cancel (restores the saved text). */
export function ProfileEditor() {
  const { user } = useAuth();
  const profile = useProfile(user?.id);
  const update = useUpdateProfile();
  const [draft, setDraft] = useState<string | null>(null);
  const fieldId = useId();
  const editing = draft !== null;
  const saved = profile.data?.resume ?? '';

  const save = () => {
    if (draft === null) return;
    update.mutate(
      { resume: draft },
      {
        onSuccess: () => {
          setDraft(null);
          toast({ title: 'Profile Updated', description: 'Your professional resume has been saved.' });
        },
        onError: () => toast({ title: 'Update Failed', description: 'Failed to update your profile. Please try again.', variant: 'destructive' }),
      },
    );
  };

  return (
    <Card className="flex flex-col gap-5">
      <div className="flex items-center gap-4">
        <Avatar url={user?.user_metadata?.avatar_url} email={user?.email ?? ''} />
        <div className="min-w-0">
          <h1 className="text-2xl font-bold">Profile</h1>
          <p className="truncate text-slate-600 dark:text-slate-400">{user?.email}</p>
        </div>
      </div>
      {profile.isPending ? (
        <Spinner label="Loading profile" />
      ) : profile.isError ? (
        <StateMessage title="Error">Failed to load your profile. Please try again later.</StateMessage>
      ) : (
        <div className="flex flex-col gap-2">
          <label htmlFor={fieldId} className="font-semibold">
            Professional Resume
          </label>
          <p className="text-sm text-slate-500 dark:text-slate-400">Used to make your key takeaways relevant to your work.</p>
          <textarea
            id={fieldId}
            value={editing ? draft : saved}
            readOnly={!editing}
            onChange={(e) => setDraft(e.target.value)}
            rows={10}
            placeholder={editing ? 'Describe your role, skills and interests' : 'No resume yet'}
            className={`w-full rounded-md border border-slate-300 p-3 text-sm dark:border-slate-700 ${
              editing ? 'bg-white dark:bg-slate-900' : 'bg-slate-50 dark:bg-slate-950'
            }`}
          />
          <div className="flex gap-2">
            {editing ? (
              <>
                <Button onClick={save} disabled={update.isPending}>
                  {update.isPending ? 'Saving…' : 'Save'}
                </Button>
                <Button variant="outline" onClick={() => setDraft(null)} disabled={update.isPending}>
                  Cancel
                </Button>
              </>
            ) : (
              <Button onClick={() => setDraft(saved)}>Edit Profile</Button>
            )}
          </div>
          <ReadingSetting on={profile.data.markOnOpen} />
          <StoriesSetting on={profile.data.stories ?? true} />
          <WeeklyEmailSetting on={profile.data.weeklyEmail ?? false} />
        </div>
      )}
    </Card>
  );
}

/** A reading or mail setting of the profile: a checkbox saved as soon as it changes. */
function SettingToggle({
  field,
  on,
  title,
  children,
}: {
  field: 'markOnOpen' | 'weeklyEmail' | 'stories';
  on: boolean;
  title: string;
  children: ReactNode;
}) {
  const update = useUpdateProfile();
  const checked = (update.isPending ? update.variables[field] : null) ?? on;
  return (
    <label className="flex items-start gap-3 border-t border-slate-200 pt-4 dark:border-slate-800">
      <input
        type="checkbox"
        checked={checked}
        disabled={update.isPending}
        onChange={(e) =>
          update.mutate(
            { [field]: e.target.checked },
            { onError: () => toast({ title: 'Update Failed', description: 'Failed to update your profile. Please try again.', variant: 'destructive' }) },
          )
        }
        className="mt-1 h-4 w-4 accent-indigo-600"
      />
      <span>
        <span className="font-semibold">{title}</span>
        <span className="block text-sm text-slate-600 dark:text-slate-400">{children}</span>
      </span>
    </label>
  );
}

/** Mark-on-open, kept with the profile so the web app and the terminal follow the same choice. */
function ReadingSetting({ on }: { on: boolean }) {
  return (
    <div className="mt-4">
      <SettingToggle field="markOnOpen" on={on} title="Mark stories read when I open them">
        In the web app and the terminal. Stories opened from Favs, Read, Trash or Shared keep their place.
      </SettingToggle>
    </div>
  );
}

/** Reading by story: one card per event with its "N sources" (the server's grouping), or every item on its own card. */
function StoriesSetting({ on }: { on: boolean }) {
  return (
    <SettingToggle field="stories" on={on} title="One card per story">
      Group the same news from several outlets into one card.
    </SettingToggle>
  );
}

/** The weekly summary by e-mail: subscribers get it; others see what subscribing adds. */
function WeeklyEmailSetting({ on }: { on: boolean }) {
  const { isSubscriber } = useAuth();
  return (
    <SettingToggle field="weeklyEmail" on={on} title="E-mail me the weekly summary">
      {isSubscriber
        ? 'Each Monday, the week’s summary with All You Need to Know, once it is written.'
        : 'For subscribers: each Monday, the week’s summary with All You Need to Know.'}
    </SettingToggle>
  );
}
