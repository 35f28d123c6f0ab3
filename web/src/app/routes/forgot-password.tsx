import { PublicLayout } from '@/components/layouts/public-layout';
import { Card } from '@/components/ui/card';
import { ForgotPasswordForm } from '@/features/auth/components/forgot-password-form';

export default function ForgotPasswordRoute() {
  return (
    <PublicLayout>
      <Card className="mx-auto my-auto w-full max-w-md">
        <ForgotPasswordForm />
      </Card>
    </PublicLayout>
  );
}
