import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { PT, SubscriptionSuccess } from '@/features/subscription/components/subscription-success';
import { renderWithProviders } from '@/test/render';
import { server } from '@/test/server';

vi.mock('@/lib/auth', () => ({ useAuth: () => ({ refreshUser: async () => {} }) }));

/** Answers POST /api/verify-subscription; what the app sent is kept in `sent`. */
let sent: unknown[] = [];
const verify = (answer: () => Response) => {
  sent = [];
  server.use(
    http.post('/api/verify-subscription', async ({ request }) => {
      sent.push(await request.json());
      return answer();
    }),
  );
};

describe('SubscriptionSuccess', () => {
  it('speaks Portuguese whatever the server says when it refuses', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    verify(() => HttpResponse.json({ success: false, message: 'Payment not completed' }));
    renderWithProviders(<SubscriptionSuccess sessionId="cs_test_1" />);
    expect(await screen.findByRole('alert')).toHaveTextContent(PT.genericFailure);
    expect(sent).toEqual([{ sessionId: 'cs_test_1' }]);
    expect(screen.queryByText(/Payment not completed/)).toBeNull();
  });

  it('says so in Portuguese when the server answers with an English error', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    verify(() => HttpResponse.json({ error: 'invalid_request', message: 'Unknown checkout session' }, { status: 400 }));
    renderWithProviders(<SubscriptionSuccess sessionId="cs_nope" />);
    expect(await screen.findByRole('alert')).toHaveTextContent(PT.genericFailure);
    expect(sent).toEqual([{ sessionId: 'cs_nope' }]);
    expect(screen.queryByText(/Unknown checkout session/)).toBeNull();
  });

  it('names a connection problem as such', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    verify(() => HttpResponse.error());
    renderWithProviders(<SubscriptionSuccess sessionId="cs_test_1" />);
    expect(await screen.findByRole('alert')).toHaveTextContent(PT.connection);
  });
});
