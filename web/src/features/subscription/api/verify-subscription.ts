import { api } from '@/lib/api-client';

export interface VerifyResult {
  success: boolean;
  message: string;
}

export const verifySubscription = (sessionId: string) =>
  api.post<VerifyResult>('/api/verify-subscription', { sessionId });
