import { PageLayout } from '@/components/layouts/page-layout';
import { AlertsPage } from '@/features/alerts/components/alerts-page';

export default function AlertsRoute() {
  return (
    <PageLayout>
      <AlertsPage />
    </PageLayout>
  );
}
