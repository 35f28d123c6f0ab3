import { PublicLayout } from '@/components/layouts/public-layout';
import { Card } from '@/components/ui/card';
import { ResetPasswordForm } from '@/features/auth/components/reset-password-form';

export default function ResetPasswordRoute() {
  return (
    <PublicLayout>
      <Card className="mx-auto my-auto w-full max-w-md">
        <ResetPasswordForm />
      </Card>
    </PublicLayout>
  );
}
