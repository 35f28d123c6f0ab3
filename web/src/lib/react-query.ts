import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { isSubscriptionRequired } from '@/lib/api/base';
import { recheckSubscription } from '@/lib/subscription';

// docs/product.md §7: no retries, no refetch on focus or interval, data never stale. Lists change only
// through our own mutations, which invalidate the matching query. The one exception is
// the subscription (lib/subscription.ts), read again whenever any call answers 403
// `subscription_required`: the account was downgraded while the app was open.
export function createQueryClient() {
  const onError = (error: Error) => {
    if (isSubscriptionRequired(error)) void recheckSubscription(client);
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        retry: false,
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
        refetchInterval: false,
        staleTime: Infinity,
      },
      mutations: { retry: false },
    },
  });
  return client;
}
