// Form checks that run before any auth call (docs/product.md §5). Each returns the toast to show, or null.
export interface ValidationError {
  title: string;
  description?: string;
}

export const PASSWORD_MIN_LENGTH = 6;

const blank = (value: string) => value.trim() === '';

export function validateSignIn(email: string, password: string): ValidationError | null {
  if (blank(email) || password === '') return { title: 'Missing fields', description: 'Please enter both email and password' };
  return null;
}

export function validateRegister(email: string, password: string, confirm: string): ValidationError | null {
  if (blank(email) || password === '' || confirm === '') return { title: 'Missing fields', description: 'Please fill in all fields' };
  if (password !== confirm) return { title: 'Passwords do not match', description: 'Please make sure your passwords match' };
  return null;
}

export function validateForgotPassword(email: string): ValidationError | null {
  if (blank(email)) return { title: 'Email required', description: 'Please enter your email address' };
  return null;
}

export function validateResetPassword(password: string, confirm: string): ValidationError | null {
  if (password === '' || confirm === '') return { title: 'Please fill in both password fields' };
  if (password !== confirm) return { title: 'Passwords do not match', description: 'Please make sure your passwords match' };
  if (password.length < PASSWORD_MIN_LENGTH) {
    return { title: 'Password too short', description: 'Password must be at least 6 characters long' };
  }
  return null;
}
