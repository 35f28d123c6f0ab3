import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProfileEditor } from '@/features/profile/components/profile-editor';
import { fakeFetch, renderWithProviders } from '@/test/render';

vi.mock('@/lib/auth', () => ({ useAuth: () => ({ user: { id: 'u1', email: 'me@example.test', user_metadata: {} } }) }));

afterEach(() => vi.unstubAllGlobals());

describe('ProfileEditor', () => {
  it('goes view → edit → save, and cancel restores the saved text', async () => {
    let saved = 'First resume';
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        if (init?.method === 'PATCH') saved = JSON.parse(String(init.body)).resume;
        return fakeFetch([
          { path: '/api/user/profile', body: { resume: saved } },
          { method: 'PATCH', path: '/api/user/profile', body: { resume: saved } },
        ])(url, init);
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

  it('says so when the profile cannot be loaded', async () => {
    vi.stubGlobal('fetch', vi.fn(fakeFetch([{ path: '/api/user/profile', status: 500, body: {} }])));
    renderWithProviders(<ProfileEditor />);
    expect(await screen.findByText('Failed to load your profile. Please try again later.')).toBeInTheDocument();
  });
});
