// Who is a subscriber is the server's decision (`subscription.isActive` of the user
// metadata, and `subscriber` on every feed answer); the app only keeps its copy fresh.
// docs/product.md §7 reads data once and never on focus or interval; this one call is the exception,
// so that a grant, a revoke or an expiry reaches an open app without a sign-out.
import { queryOptions, type QueryClient } from '@tanstack/react-query';

/** How often an open app asks again, besides on focus, on a 403 `subscription_required` and on a feed that disagrees. */
export const SUBSCRIPTION_RECHECK_MS = 30_000;

export const USER_METADATA_KEY = ['user-metadata'] as const;

/** GET /api/user/metadata. The HTTP client loads with the first call: the landing page imports this module. */
export async function getUserMetadata(signal?: AbortSignal) {
  const { client, unwrap } = await import('@/lib/api-client');
  return unwrap(client.GET('/api/user/metadata', { signal }));
}

export const userMetadataQueryOptions = (userId: string | null | undefined) =>
  queryOptions({
    queryKey: [...USER_METADATA_KEY, userId ?? null],
    queryFn: ({ signal }) => getUserMetadata(signal),
    enabled: Boolean(userId),
    refetchInterval: SUBSCRIPTION_RECHECK_MS,
    refetchOnWindowFocus: 'always',
  });

/** Reads the subscription again now: something said it may have changed. */
export function recheckSubscription(queryClient: QueryClient) {
  return queryClient.invalidateQueries({ queryKey: USER_METADATA_KEY });
}
