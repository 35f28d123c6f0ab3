// The server's word on the subscription rides on every list answer; the app follows it.
import { useEffect } from 'react';
import { useAuth } from '@/lib/auth';

/**
 * Follows the server's word on the subscription carried by a list answer (`subscriber` on
 * feed and search pages): when it disagrees with what the app believes, the account is
 * read again, so the header and every list follow without a sign-out.
 */
export function useFollowSubscription(answer: { subscriber: boolean } | undefined) {
  const { user, isSubscriber, subscriptionKnown, recheckSubscription } = useAuth();
  const disagrees = Boolean(user && subscriptionKnown && answer && answer.subscriber !== isSubscriber);
  useEffect(() => {
    if (disagrees) recheckSubscription();
  }, [disagrees, recheckSubscription]);
}
