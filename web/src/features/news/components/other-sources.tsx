// The reader's list of the other outlets that reported the same story: each opens in the
// reader (replacing its entry, as Previous / Next story do, so one Esc or back still returns
// to the list), with a link to the outlet's own page when it has one.
import { ExternalLink } from 'lucide-react';
import { useId } from 'react';
import { Link, useLocation } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { READER_STATE, readerPath, type AppView } from '@/config/paths';
import { SourceBadge } from '@/features/news/components/source-badge';
import { itemSource } from '@/features/news/source';
import type { Story } from '@/lib/api/types';

export function OtherSources({ story, view, q }: { story: Story; view: AppView; q?: string }) {
  const location = useLocation();
  const heading = useId();
  if (story.outlets.length === 0) return null;
  return (
    <section aria-labelledby={heading} className="mt-10 border-t border-slate-200 pt-6 dark:border-slate-800" data-testid="other-sources">
      <h2 id={heading} className="text-sm font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">
        Other sources
      </h2>
      <ul className="mt-2 divide-y divide-slate-200 dark:divide-slate-800">
        {story.outlets.map((outlet) => {
          const source = itemSource(outlet);
          return (
            <li key={outlet.id} className="flex items-start gap-3 py-3" data-testid="outlet">
              <SourceBadge source={source} />
              <div className="min-w-0 flex-1">
                <span className="block text-xs font-medium text-slate-600 dark:text-slate-400">{source}</span>
                <Link
                  to={readerPath(view, outlet.id, q)}
                  replace
                  state={location.state ?? READER_STATE}
                  className="font-medium leading-snug text-slate-900 underline-offset-2 hover:underline focus-visible:underline dark:text-slate-100"
                >
                  {outlet.title}
                </Link>
              </div>
              {outlet.url && (
                <a href={outlet.url} target="_blank" rel="noopener noreferrer" className={buttonClass('ghost', 'sm', 'shrink-0')} title={`Read at ${source}`}>
                  <ExternalLink aria-hidden="true" className="h-4 w-4" />
                  <span className="sr-only">
                    Read at {source} (opens in a new tab)
                  </span>
                </a>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
