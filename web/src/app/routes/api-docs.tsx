import { PageLayout } from '@/components/layouts/page-layout';
import { ApiDocs } from '@/features/api-key/components/api-docs';

export default function ApiDocsRoute() {
  return (
    <PageLayout>
      <ApiDocs />
    </PageLayout>
  );
}
