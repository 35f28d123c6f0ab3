import { PageLayout } from '@/components/layouts/page-layout';
import { TrendsView } from '@/features/trends/components/trends-view';

export default function TrendsRoute() {
  return (
    <PageLayout wide>
      <TrendsView />
    </PageLayout>
  );
}
