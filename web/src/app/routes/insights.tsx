import { PageLayout } from '@/components/layouts/page-layout';
import { InsightsView } from '@/features/insights/components/insights-view';

// docs/product.md §16: for subscribers; a free reader sees the subscribe invitation.
export default function InsightsRoute() {
  return (
    <PageLayout wide>
      <InsightsView />
    </PageLayout>
  );
}
