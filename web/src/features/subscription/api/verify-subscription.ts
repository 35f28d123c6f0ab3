import { api } from '@/lib/api-client';
import type { VerifyResult } from '@/lib/api/types';

export const verifySubscription = (sessionId: string) =>
  api.post<VerifyResult>('/api/verify-subscription', { sessionId });
