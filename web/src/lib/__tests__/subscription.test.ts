import { describe, expect, it } from 'vitest';
import { ALWAYS_SUBSCRIBER_ID, isSubscriber } from '@/lib/subscription';

describe('isSubscriber', () => {
  it('is false without a user or any sign', () => {
    expect(isSubscriber(null)).toBe(false);
    expect(isSubscriber({ id: 'u', user_metadata: {} }, { subscription: { isActive: false, customerId: null } })).toBe(false);
  });
  it.each([
    ['the special id', { id: ALWAYS_SUBSCRIBER_ID }, null],
    ['has_active_subscription', { id: 'u', has_active_subscription: true }, null],
    ['user metadata isActive', { id: 'u', user_metadata: { subscription: { isActive: true } } }, null],
    ['a customer id', { id: 'u', user_metadata: { subscription: { customerId: 'cus_1' } } }, null],
    ['fetched metadata', { id: 'u' }, { subscription: { isActive: true } }],
  ])('holds with %s', (_name, user, metadata) => {
    expect(isSubscriber(user, metadata)).toBe(true);
  });
});
