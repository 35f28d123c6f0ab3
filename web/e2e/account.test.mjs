// Accounts end to end: the 404 page, protected deep links, registration with its validation,
// Google sign-in being off, sign out and in, and a password reset through the e-mailed link.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import {
  PASSWORD,
  assertNoConsoleErrors,
  launchBrowser,
  openPage,
  register,
  shoot,
  signIn,
  signOut,
  toastText,
  waitForPath,
  waitForToast,
} from './helpers.mjs';

const EMAIL = `reader-${Date.now()}@example.test`;
const NEW_PASSWORD = 'battery-staple-2';
/** The password that works now: the reset step changes it when it runs. */
let currentPassword = PASSWORD;

/** Finds the newest e-mail to `to` in the daemon's outbox and returns the link it carries. */
async function resetLinkFromOutbox(daemon, to) {
  const list = JSON.parse(await daemon.cli(['outbox', 'list', '--json']));
  const all = Array.isArray(list) ? list : (list.data ?? list.messages ?? list.items ?? []);
  const messages = all.filter((m) => JSON.stringify(m).includes(to));
  assert.ok(messages.length > 0, `no e-mail to ${to} in the outbox`);
  // The outbox lists newest first.
  const last = messages[0];
  const shown = await daemon.cli(['outbox', 'show', String(last.id), '--json']);
  const links = [...shown.matchAll(/https?:\/\/[^\s"'<>\\]+/g)].map((m) => m[0].replace(/&amp;/g, '&'));
  const link = links.find((l) => /verify|recover|reset/.test(l));
  assert.ok(link, `no reset link in ${shown}`);
  return link;
}

describe('accounts', () => {
  let daemon;
  let browser;
  let page;
  let errors;

  before(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, daemon.url));
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('shows the 404 page for an unknown route', async () => {
    await page.goto('/no/such/page');
    await page.getByRole('heading', { name: '404 Page Not Found' }).waitFor();
    assert.match(await page.locator('main').innerText(), /Developer hint/);
    await shoot(page, 'not-found');
    // The daemon answers unknown paths with status 404 (and the app), which Chromium logs.
    assertNoConsoleErrors(errors, [/404 \(Not Found\)/]);
    errors.length = 0;
  });

  it('sends an anonymous deep link to a protected page back to /', async () => {
    await page.goto('/weekly-summary');
    await waitForPath(page, '/');
    await page.getByRole('heading', { name: 'AI-Powered News Experience' }).waitFor();
    await shoot(page, 'landing');
  });

  it('checks the sign-in and registration forms before calling the server', async () => {
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    await waitForToast(page, 'Missing fields');
    assert.match(await toastText(page), /Please enter both email and password/);

    await page.getByRole('button', { name: 'Continue with Google' }).click();
    await waitForToast(page, 'Google sign in is temporarily disabled');

    await page.goto('/register');
    await shoot(page, 'register');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm password').fill('something-else');
    await page.getByRole('button', { name: 'Create account' }).click();
    await waitForToast(page, 'Passwords do not match');
  });

  it('registers, signs out and signs in again', async () => {
    await register(page, EMAIL);
    if (new URL(page.url()).pathname !== '/app') await signIn(page, EMAIL);
    await page.locator('[data-testid="news-card"]').first().waitFor();
    await signOut(page);
    assert.equal(await page.evaluate(() => localStorage.getItem('radar-auth')), null);
    await signIn(page, EMAIL);
    await waitForToast(page, 'Welcome back!');
  });

  it('opens a deep link when signed in', async () => {
    await page.goto('/app?view=trash');
    await page.getByRole('heading', { name: 'Trash is empty' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Trash' }).getAttribute('aria-current'), 'page');
  });

  // Pending until the CLI has `radar outbox` (the e-mail outbox reader): the step skips itself
  // while the command is missing and runs as soon as the binary has it.
  it('resets the password through the e-mailed link', async (t) => {
    if (!(await daemon.cli(['outbox', '--help']).then(() => true, () => false))) {
      t.skip('pending: this radar build has no `outbox` command to read the reset e-mail');
      return;
    }
    await signOut(page);
    await page.goto('/forgot-password');
    await shoot(page, 'forgot-password');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await waitForToast(page, 'Email required');
    // The server's check of the address is shown, not "Check Your Email".
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await waitForToast(page, 'Password reset failed');
    await page.getByText('Unable to validate email address', { exact: false }).first().waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('heading', { name: 'Check Your Email' }).waitFor();

    const link = await resetLinkFromOutbox(daemon, EMAIL);
    await page.goto(link);
    await waitForPath(page, '/reset-password');
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await shoot(page, 'reset-password');
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('Confirm new password').fill('short');
    await page.getByRole('button', { name: 'Reset password' }).click();
    await waitForToast(page, 'Password too short');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Reset password' }).click();
    await page.getByRole('heading', { name: 'Password Reset Successful' }).waitFor();
    // The text says where the page goes: the recovery link signed the reader in.
    await page.getByText('Taking you to your feed').waitFor();
    currentPassword = NEW_PASSWORD;
    // After 2 s the page goes to /, which takes the (recovery-)signed-in user on to /app.
    await waitForPath(page, '/app');
    await signOut(page);
    await signIn(page, EMAIL, NEW_PASSWORD);
  });

  it('signs in from tokens in the address through /auth/callback', async () => {
    const { anonKey } = await (await fetch(`${daemon.url}/api/config`)).json();
    const answer = await fetch(`${daemon.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL, password: currentPassword }),
    });
    assert.equal(answer.status, 200);
    const tokens = await answer.json();
    const fresh = await openPage(browser, daemon.url);
    const fragment = new URLSearchParams({
      access_token: tokens.access_token,
      refresh_token: tokens.refresh_token,
      expires_in: String(tokens.expires_in),
      token_type: 'bearer',
      type: 'signup',
    });
    await fresh.page.goto(`/#${fragment}`);
    await fresh.page.waitForURL((url) => url.pathname === '/app', { timeout: 5000 });
    assert.equal(new URL(fresh.page.url()).hash, '');
    await fresh.page.locator('[data-testid="news-card"]').first().waitFor();
    assertNoConsoleErrors(fresh.errors);
    await fresh.context.close();
  });

  it('sends a reset link without the recovery marker to /forgot-password', async () => {
    await page.goto('/reset-password');
    await waitForToast(page, 'Invalid reset link');
    await waitForPath(page, '/forgot-password');
  });

  it('logged no console errors', () => {
    // The refused malformed address on /forgot-password is the one expected failed request.
    assertNoConsoleErrors(errors, [/\/forgot-password: Failed to load resource: .* status of 400/]);
  });
});
