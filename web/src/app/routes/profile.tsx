import { PageLayout } from '@/components/layouts/page-layout';
import { ProfileEditor } from '@/features/profile/components/profile-editor';

export default function ProfileRoute() {
  return (
    <PageLayout>
      <ProfileEditor />
    </PageLayout>
  );
}
