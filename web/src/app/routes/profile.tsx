import { PageLayout } from '@/components/layouts/page-layout';
import { ChangeEmail } from '@/features/profile/components/change-email';
import { ProfileEditor } from '@/features/profile/components/profile-editor';

export default function ProfileRoute() {
  return (
    <PageLayout>
      <div className="flex flex-col gap-6">
        <ProfileEditor />
        <ChangeEmail />
      </div>
    </PageLayout>
  );
}
