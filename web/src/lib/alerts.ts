// The reader's alerts list, shared by the header's badge and the alerts page, so both read
// one cached answer (docs/product.md §15).
import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';

export const ALERTS_KEY = ['alerts'] as const;

/** How often the badge asks again while a page is open. */
const BADGE_REFRESH_MS = 60_000;

export function useAlertList() {
  const { user } = useAuth();
  return useQuery({
    queryKey: ALERTS_KEY,
    queryFn: ({ signal }) => unwrap(client.GET('/api/alerts', { signal })),
    enabled: Boolean(user),
    refetchInterval: BADGE_REFRESH_MS,
  });
}
