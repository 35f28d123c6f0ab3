import { Fragment } from 'react';
import type { WeeklySummary } from '@/lib/api/types';

type KeyPoint = NonNullable<WeeklySummary['key_points']>[number];

/** A week's key points: one sentence each, followed by the links of the outlets that reported it. */
export function KeyPointList({ points }: { points: readonly KeyPoint[] }) {
  return (
    <ul className="mt-2 flex list-disc flex-col gap-2 pl-5">
      {points.map((point) => (
        <li key={point.text}>
          {point.text}{' '}
          <span className="text-sm text-slate-600 dark:text-slate-400">
            (
            {point.sources.map((source, i) => (
              <Fragment key={source.url}>
                {i > 0 && ', '}
                <a href={source.url} target="_blank" rel="noopener noreferrer" className="text-indigo-600 hover:underline dark:text-indigo-400">
                  {source.name}
                </a>
              </Fragment>
            ))}
            )
          </span>
        </li>
      ))}
    </ul>
  );
}
