// Who counts as a subscriber (spec 4), and the user-metadata call it depends on.
import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/**
 * The original product always treated one hard-coded account as a subscriber. Radar keeps the
 * rule with a reserved id the daemon never issues (its ids are random v4 UUIDs), so it is inert
 * unless an operator deliberately creates that account.
 */
export const ALWAYS_SUBSCRIBER_ID = '00000000-0000-0000-0000-000000000001';

export interface SubscriptionMetadata {
  isActive?: boolean;
  customerId?: string | null;
}

export interface UserMetadata {
  subscription?: SubscriptionMetadata;
}

export interface SubscriberFacts {
  id?: string | null;
  has_active_subscription?: boolean | null;
  user_metadata?: { subscription?: SubscriptionMetadata | null } | null;
}

export function isSubscriber(user: SubscriberFacts | null | undefined, metadata?: UserMetadata | null): boolean {
  if (!user) return false;
  if (user.id === ALWAYS_SUBSCRIBER_ID) return true;
  if (user.has_active_subscription) return true;
  const subs = [user.user_metadata?.subscription, metadata?.subscription];
  return subs.some((s) => Boolean(s?.isActive) || Boolean(s?.customerId));
}

export const getUserMetadata = (): Promise<UserMetadata> => api.get<UserMetadata>('/api/user/metadata');

export const userMetadataQueryOptions = (userId: string | null | undefined) =>
  queryOptions({
    queryKey: ['user-metadata', userId ?? null],
    queryFn: getUserMetadata,
    enabled: Boolean(userId),
  });

export function useUserMetadata(userId: string | null | undefined) {
  return useQuery(userMetadataQueryOptions(userId));
}
