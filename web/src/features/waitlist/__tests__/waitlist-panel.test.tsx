import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WaitlistPanel } from '@/features/waitlist/components/waitlist-panel';
import { fakeFetch, renderWithProviders } from '@/test/render';

vi.mock('@/lib/auth', () => ({ useAuth: () => ({ user: { id: 'u1', email: 'me@example.test' } }) }));

afterEach(() => vi.unstubAllGlobals());

describe('WaitlistPanel', () => {
  it('joins: Get Notified, then Successfully Joined!', async () => {
    let joined = false;
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (init?.method === 'POST') joined = true;
        const status = { isOnWaitlist: joined, joinedAt: joined ? '2026-11-20T10:00:00Z' : null };
        return fakeFetch([
          { path: '/api/waitlist/status', body: status },
          { method: 'POST', path: '/api/waitlist/join', body: status },
        ])(url, init);
      }),
    );
    const user = userEvent.setup();
    renderWithProviders(<WaitlistPanel />);
    expect(await screen.findByRole('heading', { name: 'Get Notified' })).toBeInTheDocument();
    expect(screen.getByText('me@example.test')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Join Waitlist' }));
    expect(await screen.findByRole('heading', { name: 'Successfully Joined!' })).toBeInTheDocument();
    expect(screen.getByText(/Nov 20, 2026/)).toBeInTheDocument();
  });

  it('treats a failing status call as not on the waitlist', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubGlobal('fetch', vi.fn(fakeFetch([{ path: '/api/waitlist/status', status: 500, body: {} }])));
    renderWithProviders(<WaitlistPanel />);
    expect(await screen.findByRole('heading', { name: 'Get Notified' })).toBeInTheDocument();
  });
});
