import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { WaitlistPanel } from '@/features/waitlist/components/waitlist-panel';
import { renderWithProviders } from '@/test/render';
import { server } from '@/test/server';

vi.mock('@/lib/auth', () => ({ useAuth: () => ({ user: { id: 'u1', email: 'me@example.test' } }) }));

describe('WaitlistPanel', () => {
  it('joins: Get Notified, then Successfully Joined!', async () => {
    let joined = false;
    const status = () => HttpResponse.json({ isOnWaitlist: joined, joinedAt: joined ? '2026-11-20T10:00:00Z' : null });
    server.use(
      http.get('/api/waitlist/status', status),
      http.post('/api/waitlist/join', () => {
        joined = true;
        return status();
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
    server.use(http.get('/api/waitlist/status', () => HttpResponse.json({}, { status: 500 })));
    renderWithProviders(<WaitlistPanel />);
    expect(await screen.findByRole('heading', { name: 'Get Notified' })).toBeInTheDocument();
  });
});
