import { useParams } from 'react-router';
import { PageLayout } from '@/components/layouts/page-layout';
import { WeeklySummaryDetail } from '@/features/weekly-summary/components/weekly-summary-detail';

export default function WeeklySummaryDetailRoute() {
  const { id = '' } = useParams();
  return (
    <PageLayout>
      <WeeklySummaryDetail key={id} id={id} />
    </PageLayout>
  );
}
