import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { ProfileEditor } from '@/features/profile/components/profile-editor';
import { renderWithProviders } from '@/test/render';
import { server } from '@/test/server';

vi.mock('@/lib/auth', () => ({ useAuth: () => ({ user: { id: 'u1', email: 'me@example.test', user_metadata: {} } }) }));

describe('ProfileEditor', () => {
  it('goes view → edit → save, and cancel restores the saved text', async () => {
    let saved = 'First resume';
    server.use(
      http.get('/api/user/profile', () => HttpResponse.json({ resume: saved })),
      http.patch('/api/user/profile', async ({ request }) => {
        saved = ((await request.json()) as { resume: string }).resume;
        return HttpResponse.json({ resume: saved });
      }),
    );
    const user = userEvent.setup();
    renderWithProviders(<ProfileEditor />);
    const area = await screen.findByLabelText('Professional Resume');
    await vi.waitFor(() => expect(area).toHaveValue('First resume'));
    expect(area).toHaveAttribute('readonly');

    await user.click(screen.getByRole('button', { name: 'Edit Profile' }));
    await user.clear(area);
    await user.type(area, 'Second resume');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByRole('button', { name: 'Edit Profile' });
    expect(saved).toBe('Second resume');
    await vi.waitFor(() => expect(screen.getByLabelText('Professional Resume')).toHaveValue('Second resume'));

    await user.click(screen.getByRole('button', { name: 'Edit Profile' }));
    await user.type(screen.getByLabelText('Professional Resume'), ' and more');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByLabelText('Professional Resume')).toHaveValue('Second resume');
  });

  it('saves "One card per story" and has the feed read again', async () => {
    let sent: unknown = null;
    let stories = true;
    server.use(
      http.get('/api/user/profile', () => HttpResponse.json({ resume: '', markOnOpen: true, stories })),
      http.patch('/api/user/profile', async ({ request }) => {
        sent = await request.json();
        stories = false;
        return HttpResponse.json({ resume: '', markOnOpen: true, stories });
      }),
    );
    const user = userEvent.setup();
    const { queryClient } = renderWithProviders(<ProfileEditor />);
    queryClient.setQueryData(['news'], { pages: [], pageParams: [] });
    const setting = await screen.findByRole('checkbox', { name: /One card per story/ });
    expect(setting).toBeChecked();
    expect(screen.getByText('Group the same news from several outlets into one card.')).toBeInTheDocument();
    await user.click(setting);
    await vi.waitFor(() => expect(screen.getByRole('checkbox', { name: /One card per story/ })).not.toBeChecked());
    expect(sent).toEqual({ stories: false });
    await vi.waitFor(() => expect(queryClient.getQueryState(['news'])?.isInvalidated).toBe(true));
  });

  it('says so when the profile cannot be loaded', async () => {
    server.use(http.get('/api/user/profile', () => HttpResponse.json({}, { status: 500 })));
    renderWithProviders(<ProfileEditor />);
    expect(await screen.findByText('Failed to load your profile. Please try again later.')).toBeInTheDocument();
  });
});
