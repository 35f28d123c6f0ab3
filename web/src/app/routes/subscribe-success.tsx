import { useSearchParams } from 'react-router';
import { PageLayout } from '@/components/layouts/page-layout';
import { SubscriptionSuccess } from '@/features/subscription/components/subscription-success';

export default function SubscribeSuccessRoute() {
  const [params] = useSearchParams();
  return (
    <PageLayout>
      <SubscriptionSuccess sessionId={params.get('session_id')} />
    </PageLayout>
  );
}
