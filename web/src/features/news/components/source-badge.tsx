// A publisher's monogram: the first letter of the server's source name on a colour of its
// own, so a list can be scanned by source. No favicon is fetched from the publisher: the app
// talks to its own daemon only.

import { sourceHue } from '@/features/news/source';

export function SourceBadge({ source, size = 'sm' }: { source: string; size?: 'sm' | 'lg' }) {
  const box = size === 'lg' ? 'h-9 w-9 text-base' : 'h-6 w-6 text-xs';
  return (
    <span aria-hidden="true" data-slot="badge" className={`inline-flex shrink-0 items-center justify-center rounded-md font-semibold ${box} ${sourceHue(source)}`}>
      {source.charAt(0).toUpperCase()}
    </span>
  );
}
