import { describe, expect, it } from 'vitest';
import { checkRecoveryLink } from '@/features/auth/recovery-link';

describe('checkRecoveryLink', () => {
  it('accepts a recovery fragment with a session', () => {
    expect(checkRecoveryLink('#access_token=a&refresh_token=b&type=recovery', true)).toEqual({ ok: true });
  });
  it('reports an error the service put in the fragment', () => {
    const check = checkRecoveryLink('#error=access_denied&error_code=otp_expired&error_description=Link+expired', false);
    expect(check).toEqual({ ok: false, title: 'Invalid or expired link', description: 'Link expired' });
  });
  it('needs the recovery marker', () => {
    expect(checkRecoveryLink('', true)).toMatchObject({ ok: false, title: 'Invalid reset link' });
    expect(checkRecoveryLink('#access_token=a&type=signup', true)).toMatchObject({ ok: false, title: 'Invalid reset link' });
  });
  it('needs a session', () => {
    expect(checkRecoveryLink('#access_token=a&type=recovery', false)).toMatchObject({ ok: false, title: 'Session expired' });
  });
});
