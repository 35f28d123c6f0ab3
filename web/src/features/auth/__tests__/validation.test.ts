import { describe, expect, it } from 'vitest';
import { validateForgotPassword, validateRegister, validateResetPassword, validateSignIn } from '@/features/auth/validation';

const text = (e: { title: string; description?: string } | null) => (e ? [e.title, e.description].filter(Boolean).join(' - ') : null);

describe('sign-in', () => {
  it('needs both fields', () => {
    expect(text(validateSignIn('', 'x'))).toBe('Missing fields - Please enter both email and password');
    expect(text(validateSignIn('a@b.c', ''))).toBe('Missing fields - Please enter both email and password');
    expect(validateSignIn('a@b.c', 'x')).toBeNull();
  });
});

describe('register', () => {
  it('needs all three fields', () => {
    expect(text(validateRegister('a@b.c', 'secret', ''))).toBe('Missing fields - Please fill in all fields');
    expect(text(validateRegister(' ', 'secret', 'secret'))).toBe('Missing fields - Please fill in all fields');
  });
  it('needs matching passwords', () => {
    expect(text(validateRegister('a@b.c', 'secret1', 'secret2'))).toBe(
      'Passwords do not match - Please make sure your passwords match',
    );
    expect(validateRegister('a@b.c', 'secret', 'secret')).toBeNull();
  });
});

describe('forgot password', () => {
  it('needs the e-mail', () => {
    expect(text(validateForgotPassword(''))).toBe('Email required - Please enter your email address');
    expect(validateForgotPassword('a@b.c')).toBeNull();
  });
});

describe('reset password', () => {
  it('needs both fields', () => {
    expect(text(validateResetPassword('', 'abcdef'))).toBe('Please fill in both password fields');
  });
  it('needs matching passwords', () => {
    expect(text(validateResetPassword('abcdef', 'abcdeg'))).toBe('Passwords do not match - Please make sure your passwords match');
  });
  it('needs at least 6 characters', () => {
    expect(text(validateResetPassword('abcde', 'abcde'))).toBe('Password too short - Password must be at least 6 characters long');
    expect(validateResetPassword('abcdef', 'abcdef')).toBeNull();
  });
});
