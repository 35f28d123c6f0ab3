import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes, useLocation } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { FeedView } from '@/features/news/components/feed-view';
import { ItemSetsProvider } from '@/features/news/components/item-sets-provider';
import { OtherSources } from '@/features/news/components/other-sources';
import { sourcesLabel, storySources } from '@/features/news/story';
import type { Story } from '@/lib/api/types';
import { newsItem, renderWithProviders } from '@/test/render';
import { byQuery, lists, server } from '@/test/server';

vi.mock('@/lib/auth', () => ({
  useAuth: () => ({ user: { id: 'u1' }, isSubscriber: false, subscriptionKnown: true, recheckSubscription: () => {} }),
}));

const story: Story = {
  id: 'item-0',
  sources: 3,
  outlets: [
    { id: 'item-7', title: 'Reuters tells it', source: 'Reuters', url: 'https://www.reuters.com/a' },
    { id: 'item-8', title: 'Told without a link', source: null, url: null },
  ],
};

describe('sources', () => {
  it('counts the outlets in words', () => {
    expect(sourcesLabel(5)).toBe('5 sources');
    expect(sourcesLabel(1)).toBe('1 source');
    expect(storySources({ story })).toBe('3 sources');
    expect(storySources({})).toBeNull();
    expect(storySources({ story: null })).toBeNull();
  });

  it('shows "N sources" on a story\'s card only', async () => {
    const items = [newsItem(0, { story }), newsItem(1)];
    server.use(...lists(), byQuery('/api/news', { '': { items, nextCursor: null, hasMore: false, limit: 5, total: 2, subscriber: false } }));
    renderWithProviders(
      <ItemSetsProvider>
        <FeedView />
      </ItemSetsProvider>,
    );
    const [grouped, alone] = await screen.findAllByTestId('news-card');
    expect(within(grouped).getByText('3 sources')).toBeInTheDocument();
    expect(within(alone).queryByText(/sources?$/)).toBeNull();
  });
});

function Address() {
  const location = useLocation();
  return <output data-testid="address">{location.pathname + location.search}</output>;
}

describe('OtherSources', () => {
  it('lists the other outlets, each opening in the reader, with its link when it has one', async () => {
    const user = userEvent.setup();
    renderWithProviders(
      <Routes>
        <Route path="*" element={<><OtherSources story={story} view="feed" /><Address /></>} />
      </Routes>,
      { route: '/app?view=feed&item=item-0' },
    );
    const section = screen.getByRole('region', { name: 'Other sources' });
    const outlets = within(section).getAllByRole('listitem');
    expect(outlets).toHaveLength(2);
    expect(within(outlets[0]).getByText('Reuters')).toBeInTheDocument();
    const external = within(outlets[0]).getByRole('link', { name: /Read at Reuters/ });
    expect(external).toHaveAttribute('href', 'https://www.reuters.com/a');
    expect(external).toHaveAttribute('rel', 'noopener noreferrer');
    expect(external).toHaveAttribute('target', '_blank');
    // Without a source name it says "Source", and without a URL there is no outside link.
    expect(within(outlets[1]).getByText('Source')).toBeInTheDocument();
    expect(within(outlets[1]).getAllByRole('link')).toHaveLength(1);

    await user.click(within(outlets[1]).getByRole('link', { name: 'Told without a link' }));
    expect(screen.getByTestId('address')).toHaveTextContent('/app?view=feed&item=item-8');
  });

  it('keeps the query of search results it was opened over', () => {
    renderWithProviders(<OtherSources story={story} view="search" q="anthropic" />);
    expect(screen.getByRole('link', { name: 'Reuters tells it' })).toHaveAttribute('href', '/app?view=search&q=anthropic&item=item-7');
  });
});
