import { BarChart3, BellRing, CalendarDays, Lightbulb } from 'lucide-react';
import { Link } from 'react-router';
import { PageLayout } from '@/components/layouts/page-layout';
import { buttonClass } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';

const FEATURES = [
  {
    icon: Lightbulb,
    title: 'Insights Tab',
    when: 'Q2 2025',
    text: 'Analysis that connects the week’s stories and explains what they mean for your field.',
    // Built: your week's reading against all readers'.
    link: { to: paths.insights, label: 'Open your Insights' },
  },
  {
    icon: CalendarDays,
    title: 'All You Need to Know',
    when: 'Q2 2025',
    text: 'Every week, the five points worth remembering:',
    bullets: [
      'The biggest model releases',
      'Research that changes what is possible',
      'Funding and acquisitions',
      'Regulation and policy moves',
      'Tools you can use on Monday',
    ],
    // Built: at the top of every weekly summary.
    link: { to: paths.weeklySummary, label: 'Read it in the weekly summary' },
  },
  {
    icon: BarChart3,
    title: 'Trends Tab',
    when: 'Q3 2025',
    text: 'Which topics are rising and fading, charted over weeks and months.',
    // Built: the Trends page.
    link: { to: paths.trends, label: 'See the trends' },
  },
  {
    icon: BellRing,
    title: 'Custom News Alerts',
    when: 'Q3 2025',
    text: 'Be told at once when a company, model or topic you follow is in the news.',
    // Built: the alerts page.
    link: { to: paths.alerts, label: 'Set up your alerts' },
  },
];

export default function UpcomingFeaturesRoute() {
  return (
    <PageLayout wide>
      <h1 className="text-2xl font-bold sm:text-3xl">Upcoming Features</h1>
      <p className="mt-1 text-slate-600 dark:text-slate-400">What we are building next for premium members.</p>
      <ul className="mt-6 grid gap-4 md:grid-cols-2">
        {FEATURES.map(({ icon: Icon, title, when, text, bullets, link }) => (
          <li key={title}>
            <Card className="h-full">
              <div className="flex items-center gap-2">
                <Icon aria-hidden="true" className="h-5 w-5 text-indigo-600" />
                <h2 className="font-semibold">{title}</h2>
                <span className="ml-auto rounded-full bg-indigo-100 px-2 py-0.5 text-xs font-medium text-indigo-800 dark:bg-indigo-900/50 dark:text-indigo-200">
                  {when}
                </span>
              </div>
              <p className="mt-2 text-sm text-slate-700 dark:text-slate-300">{text}</p>
              {bullets && (
                <ul className="mt-2 list-disc pl-5 text-sm text-slate-700 dark:text-slate-300">
                  {bullets.map((b) => (
                    <li key={b}>{b}</li>
                  ))}
                </ul>
              )}
              {link && (
                <Link to={link.to} className="mt-3 inline-block text-sm font-medium text-indigo-600 hover:underline dark:text-indigo-400">
                  {link.label}
                </Link>
              )}
            </Card>
          </li>
        ))}
      </ul>
      <div className="mt-8 flex justify-center">
        <Link to={paths.subscribe} className={buttonClass('primary', 'lg')}>
          Join Waitlist
        </Link>
      </div>
    </PageLayout>
  );
}
