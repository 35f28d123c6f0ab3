import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { InsightsView } from '@/features/insights/components/insights-view';
import type { Insights } from '@/lib/api/types';
import { renderWithProviders } from '@/test/render';
import { server } from '@/test/server';

vi.mock('@/lib/auth', () => ({ useAuth: () => ({ user: { id: 'u1', email: 'me@example.test', user_metadata: {} } }) }));

const week: Insights = {
  since: '2026-11-21T00:00:00Z',
  until: '2026-11-28T00:00:00Z',
  reads: 2,
  topics: [{ topic: 'Robotics', reads: 2 }],
  sources: [{ source: 'Robots Weekly', reads: 2 }],
  comparison: { shown: true, readers: 25, minReaders: 20, hiddenReason: null, countedAt: '2026-11-28T00:00:00Z', topics: [{ topic: 'Robotics', yours: 1, everyone: 0.25 }] },
  missed: [{ id: 'a', title: 'Nvidia unveils chips', url: 'https://chips.example/a', source: 'Chips', outlets: 2, readers: null }],
  resumeTerms: [{ term: 'gpu', items: 3 }],
  hasResume: true,
};

describe('InsightsView', () => {
  it('draws the week: reads, the comparison, the stories missed and the resume terms', async () => {
    server.use(http.get('/api/insights', () => HttpResponse.json(week)));
    renderWithProviders(<InsightsView />);
    expect(screen.getByTestId('insights-skeleton')).toBeInTheDocument();
    expect(await screen.findByText('2 stories this week.')).toBeInTheDocument();
    expect(screen.getByRole('list', { name: 'Your reads by source' })).toHaveTextContent('Robots Weekly');
    expect(screen.getByTestId('comparison')).toHaveTextContent('100%');
    expect(screen.getByTestId('comparison')).toHaveTextContent('25%');
    const missed = screen.getByRole('list', { name: 'Stories you missed' });
    expect(missed).toHaveTextContent('2 outlets');
    expect(missed).not.toHaveTextContent('reader');
    expect(screen.getByRole('list', { name: 'Resume terms matched' })).toHaveTextContent('gpu · 3');
  });

  it('says why the comparison is hidden', async () => {
    const hidden = { ...week, comparison: { ...week.comparison, shown: false, readers: 3, topics: [], hiddenReason: 'Shown once at least 20 readers have read this week.' } };
    server.use(http.get('/api/insights', () => HttpResponse.json(hidden)));
    renderWithProviders(<InsightsView />);
    expect(await screen.findByTestId('comparison-hidden')).toHaveTextContent('at least 20 readers');
    expect(screen.queryByTestId('comparison')).not.toBeInTheDocument();
  });

  it('invites a free reader to subscribe', async () => {
    server.use(
      http.get('/api/insights', () =>
        HttpResponse.json({ error: 'subscription_required', message: 'Insights are for subscribers. Subscribe to unlock them.' }, { status: 403 }),
      ),
    );
    renderWithProviders(<InsightsView />);
    expect(await screen.findByRole('link', { name: 'Subscribe Now' })).toHaveAttribute('href', '/subscribe');
  });

  it('says what to do when the insights cannot be loaded', async () => {
    server.use(http.get('/api/insights', () => HttpResponse.json({}, { status: 500 })));
    renderWithProviders(<InsightsView />);
    expect(await screen.findByText('Failed to load your insights. Check your connection and try again.', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  }, 15_000);
});
