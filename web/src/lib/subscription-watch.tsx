// The signed-in reader's subscription, read through the query cache (lib/subscription.ts) and
// reported to the auth provider. Its own chunk: the query observer it needs is not part of the
// first download, which a visitor to the landing page never uses; a reader's page brings it
// anyway.
import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { userMetadataQueryOptions } from '@/lib/subscription';

export interface SubscriptionState {
  /** `subscription.isActive` of the user metadata. */
  subscriber: boolean;
  /** Whether the metadata has been read at least once. */
  known: boolean;
}

export default function SubscriptionWatch({ userId, onChange }: { userId: string; onChange(state: SubscriptionState): void }) {
  const metadata = useQuery(userMetadataQueryOptions(userId));
  const subscriber = Boolean(metadata.data?.subscription.isActive);
  useEffect(() => onChange({ subscriber, known: metadata.isFetched }), [subscriber, metadata.isFetched, onChange]);
  return null;
}
