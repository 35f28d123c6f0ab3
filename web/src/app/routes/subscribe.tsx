import { PageLayout } from '@/components/layouts/page-layout';
import { WaitlistPanel } from '@/features/waitlist/components/waitlist-panel';

export default function SubscribeRoute() {
  return (
    <PageLayout wide>
      <WaitlistPanel />
    </PageLayout>
  );
}
