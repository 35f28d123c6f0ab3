import { screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PT, SubscriptionSuccess } from '@/features/subscription/components/subscription-success';
import { fakeFetch, renderWithProviders } from '@/test/render';

vi.mock('@/lib/auth', () => ({ useAuth: () => ({ refreshUser: async () => {} }) }));

afterEach(() => vi.unstubAllGlobals());

describe('SubscriptionSuccess', () => {
  it('speaks Portuguese whatever the server says when it refuses', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubGlobal('fetch', vi.fn(fakeFetch([{ method: 'POST', path: '/api/verify-subscription', body: { success: false, message: 'Payment not completed' } }])));
    renderWithProviders(<SubscriptionSuccess sessionId="cs_test_1" />);
    expect(await screen.findByRole('alert')).toHaveTextContent(PT.genericFailure);
    expect(screen.queryByText(/Payment not completed/)).toBeNull();
  });

  it('says so in Portuguese when the server answers with an English error', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubGlobal('fetch', vi.fn(fakeFetch([{ method: 'POST', path: '/api/verify-subscription', status: 400, body: { error: 'invalid_request', message: 'Unknown checkout session' } }])));
    renderWithProviders(<SubscriptionSuccess sessionId="cs_nope" />);
    expect(await screen.findByRole('alert')).toHaveTextContent(PT.genericFailure);
    expect(screen.queryByText(/Unknown checkout session/)).toBeNull();
  });

  it('names a connection problem as such', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubGlobal('fetch', vi.fn(() => Promise.reject(new TypeError('Failed to fetch'))));
    renderWithProviders(<SubscriptionSuccess sessionId="cs_test_1" />);
    expect(await screen.findByRole('alert')).toHaveTextContent(PT.connection);
  });
});
