import { BookmarkCheck, Radar, Zap } from 'lucide-react';
import { Navigate } from 'react-router';
import { PublicLayout } from '@/components/layouts/public-layout';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { RegisterForm } from '@/features/auth/components/register-form';
import { useAuth } from '@/lib/auth';

const BENEFITS = [
  { icon: Radar, title: 'Stay ahead', text: 'The day’s AI news in one place, summarised.' },
  { icon: BookmarkCheck, title: 'Keep what matters', text: 'Favourite, mark read and hide stories across devices.' },
  { icon: Zap, title: 'Read fast', text: 'Drops and TV mode for a glance or a wall screen.' },
];

export default function RegisterRoute() {
  const { status } = useAuth();
  if (status === 'signedIn') return <Navigate to={paths.app} replace />;
  return (
    <PublicLayout>
      <div className="grid flex-1 items-center gap-10 lg:grid-cols-2">
        <section>
          <h1 className="text-3xl font-extrabold sm:text-4xl">Create your Radar account</h1>
          <ul className="mt-6 flex flex-col gap-4">
            {BENEFITS.map(({ icon: Icon, title, text }) => (
              <li key={title} className="flex gap-3">
                <Icon aria-hidden="true" className="mt-0.5 h-5 w-5 shrink-0 text-indigo-600" />
                <span>
                  <strong>{title}.</strong> {text}
                </span>
              </li>
            ))}
          </ul>
        </section>
        <Card className="mx-auto w-full max-w-md">
          <h2 className="mb-4 text-2xl font-bold">Sign up</h2>
          <RegisterForm />
        </Card>
      </div>
    </PublicLayout>
  );
}
