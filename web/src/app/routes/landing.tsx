import { Newspaper, Sparkles, Zap } from 'lucide-react';
import { Navigate } from 'react-router';
import { PublicLayout } from '@/components/layouts/public-layout';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { SignInForm } from '@/features/auth/components/sign-in-form';
import { initialUrlHash, useAuth } from '@/lib/auth';

const hasTokenInFragment = /(^|[#&])access_token=/.test(initialUrlHash) && !/(^|&)type=recovery/.test(initialUrlHash.slice(1));

const POINTS = [
  { icon: Zap, title: 'Drops', text: 'One story at a time, sized for a glance between meetings.' },
  { icon: Newspaper, title: 'Curated feed', text: 'The AI news that matters, summarised and linked to its source.' },
  { icon: Sparkles, title: 'Key takeaways', text: 'What each story means for your work, for premium members.' },
];

export default function LandingRoute() {
  const { status } = useAuth();
  if (hasTokenInFragment && window.location.pathname === paths.landing) return <Navigate to={paths.authCallback} replace />;
  if (status === 'signedIn') return <Navigate to={paths.app} replace />;
  return (
    <PublicLayout>
      <div className="grid flex-1 items-center gap-10 lg:grid-cols-2">
        <section>
          <h1 className="text-4xl font-extrabold tracking-tight sm:text-5xl">AI-Powered News Experience</h1>
          <p className="mt-4 text-lg text-slate-600 dark:text-slate-400">
            Radar follows the AI world for you and hands you the stories that matter, in a feed, in quick drops, or on the big screen.
          </p>
          <ul className="mt-8 flex flex-col gap-4">
            {POINTS.map(({ icon: Icon, title, text }) => (
              <li key={title} className="flex gap-3">
                <Icon aria-hidden="true" className="mt-0.5 h-5 w-5 shrink-0 text-indigo-600" />
                <span>
                  <strong>{title}.</strong> {text}
                </span>
              </li>
            ))}
          </ul>
        </section>
        <Card id="sign-in" className="mx-auto w-full max-w-md">
          <h2 className="mb-4 text-2xl font-bold">Sign in</h2>
          <SignInForm />
        </Card>
      </div>
    </PublicLayout>
  );
}
