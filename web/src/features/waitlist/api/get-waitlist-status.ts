import { queryOptions, useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import type { WaitlistStatus } from '@/lib/api/types';

export const NOT_ON_WAITLIST: WaitlistStatus = { isOnWaitlist: false, joinedAt: null };

/** docs/product.md §7: an error reading the status counts as not on the waitlist. */
export async function getWaitlistStatus(signal?: AbortSignal): Promise<WaitlistStatus> {
  try {
    return await unwrap(client.GET('/api/waitlist/status', { signal }));
  } catch (error) {
    console.warn('Reading the waitlist status failed', error);
    return NOT_ON_WAITLIST;
  }
}

export const waitlistStatusQueryOptions = (userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['waitlist-status', userId ?? null],
    queryFn: ({ signal }) => getWaitlistStatus(signal),
    enabled: Boolean(userId),
  });

export function useWaitlistStatus(userId: string | null | undefined) {
  return useQuery(waitlistStatusQueryOptions(userId));
}
