// Checks the password-recovery link (docs/product.md §4 and §8): the address fragment must carry the
// recovery marker and the auth client must hold a session.
export type RecoveryCheck =
  | { ok: true }
  | { ok: false; title: 'Invalid or expired link' | 'Session expired' | 'Invalid reset link'; description: string };

const ASK_AGAIN = 'Please request a new password reset link.';

export function checkRecoveryLink(hash: string, hasSession: boolean): RecoveryCheck {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  if (params.get('error') || params.get('error_code')) {
    return { ok: false, title: 'Invalid or expired link', description: params.get('error_description') ?? ASK_AGAIN };
  }
  if (params.get('type') !== 'recovery') return { ok: false, title: 'Invalid reset link', description: ASK_AGAIN };
  if (!hasSession) return { ok: false, title: 'Session expired', description: ASK_AGAIN };
  return { ok: true };
}
