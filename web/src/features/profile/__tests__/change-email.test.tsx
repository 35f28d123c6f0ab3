import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ChangeEmail } from '@/features/profile/components/change-email';
import { renderWithProviders } from '@/test/render';

const auth = vi.hoisted(() => ({
  user: { id: 'u1', email: 'me@example.test', user_metadata: {} } as Record<string, unknown>,
  changeEmail: vi.fn(),
}));
vi.mock('@/lib/auth', () => ({ useAuth: () => auth }));

beforeEach(() => {
  auth.changeEmail.mockReset();
  auth.user = { id: 'u1', email: 'me@example.test', user_metadata: {} };
});

describe('ChangeEmail', () => {
  it('asks the server for the change and says to check the mail', async () => {
    auth.changeEmail.mockResolvedValue({ error: null });
    const user = userEvent.setup();
    renderWithProviders(<ChangeEmail />);
    expect(screen.getByText('me@example.test')).toBeInTheDocument();
    await user.type(screen.getByLabelText('New e-mail'), ' New@Example.test ');
    await user.click(screen.getByRole('button', { name: 'Change e-mail' }));
    expect(auth.changeEmail).toHaveBeenCalledWith('New@Example.test');
    expect(await screen.findByText('Check Your Email', { exact: true })).toBeInTheDocument();
    expect(screen.getByLabelText('New e-mail')).toHaveValue('');
  });

  it("shows the server's refusal and an empty address's", async () => {
    auth.changeEmail.mockResolvedValue({ error: 'A user with this email address has already been registered' });
    const user = userEvent.setup();
    renderWithProviders(<ChangeEmail />);
    await user.click(screen.getByRole('button', { name: 'Change e-mail' }));
    expect(await screen.findByText('Email required', { exact: true })).toBeInTheDocument();
    expect(auth.changeEmail).not.toHaveBeenCalled();
    await user.type(screen.getByLabelText('New e-mail'), 'taken@example.test');
    await user.click(screen.getByRole('button', { name: 'Change e-mail' }));
    expect(await screen.findByText('A user with this email address has already been registered', { exact: true })).toBeInTheDocument();
  });

  it('names the address waiting for confirmation', () => {
    auth.user = { ...auth.user, new_email: 'next@example.test' };
    renderWithProviders(<ChangeEmail />);
    expect(screen.getByText('Waiting for confirmation of next@example.test')).toBeInTheDocument();
  });
});
