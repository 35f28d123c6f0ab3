import { PageLayout } from '@/components/layouts/page-layout';
import { WeeklySummaryList } from '@/features/weekly-summary/components/weekly-summary-list';

// docs/product.md §6: the weekly-summary premium check always allows access, so no premium notice here.
export default function WeeklySummaryRoute() {
  return (
    <PageLayout wide>
      <WeeklySummaryList />
    </PageLayout>
  );
}
