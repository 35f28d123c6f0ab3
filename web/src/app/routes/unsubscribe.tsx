import { PublicLayout } from '@/components/layouts/public-layout';
import { UnsubscribePage } from '@/features/alerts/components/unsubscribe-page';

export default function UnsubscribeRoute() {
  return (
    <PublicLayout>
      <div className="my-auto w-full">
        <UnsubscribePage />
      </div>
    </PublicLayout>
  );
}
