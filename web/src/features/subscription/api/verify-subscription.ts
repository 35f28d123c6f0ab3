import { client, unwrap } from '@/lib/api-client';

export const verifySubscription = (sessionId: string) =>
  unwrap(client.POST('/api/verify-subscription', { body: { sessionId } }));
