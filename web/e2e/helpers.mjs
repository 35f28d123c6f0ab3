// Browser helpers for the end-to-end tests: Debian's Chromium through playwright-core,
// console-error capture, screenshots in light and dark, and the sign-up / sign-in steps.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';

export const SCREENSHOTS = resolve(import.meta.dirname, 'screenshots');
export const PASSWORD = 'correct-horse-1';

export async function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_BIN ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * Holds back the app's entry script on `page` until the returned function is called: what the
 * page draws meanwhile is the first paint's, not the app's.
 */
export async function holdAppCode(page) {
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  return release;
}

/**
 * A fresh context (own storage) on the daemon, with clipboard access and a record of console
 * errors and uncaught exceptions.
 */
export async function openPage(browser, baseURL, { width = 1280, height = 900 } = {}) {
  const context = await browser.newContext({ baseURL, viewport: { width, height } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseURL });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    // A failed request's message names no address: the resource's is added, so a failure
    // says which call it was.
    const from = message.location()?.url;
    const resource = from && from !== page.url() ? ` [${from}]` : '';
    errors.push(`${page.url()}: ${message.text()}${resource}`);
  });
  page.on('pageerror', (error) => errors.push(`${page.url()}: uncaught ${error.message}`));
  return { context, page, errors };
}

/** Fails when the page logged errors other than the expected ones (regular expressions). */
export function assertNoConsoleErrors(errors, allowed = []) {
  const unexpected = errors.filter((line) => !allowed.some((re) => re.test(line)));
  assert.deepEqual(unexpected, [], 'console errors');
}

/**
 * Every visible control must have an accessible name and be reachable with the keyboard
 * (tabs in a tablist are reached with the arrow keys, as the ARIA pattern says).
 */
export async function assertControlsAccessible(page) {
  const problems = await page.evaluate(() => {
    const controls = document.querySelectorAll('a[href], button, input, textarea, select, [role="button"], [role="tab"]');
    const out = [];
    for (const el of controls) {
      const rect = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      if (rect.width === 0 || rect.height === 0 || style.visibility === 'hidden') continue;
      const labelledBy = (el.getAttribute('aria-labelledby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' ');
      const labels = 'labels' in el && el.labels ? [...el.labels].map((l) => l.textContent).join(' ') : '';
      const name = [el.getAttribute('aria-label'), labelledBy, labels, el.textContent, el.getAttribute('title')]
        .map((t) => (t ?? '').trim())
        .find(Boolean);
      const what = `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 30)}"`;
      if (!name) out.push(`${what} has no accessible name`);
      if (el.tabIndex < 0 && el.getAttribute('role') !== 'tab') out.push(`${what} is not in the tab order`);
    }
    return out;
  });
  if (problems.length) throw new Error(`${page.url()}: ${problems.join('; ')}`);
}

/** The two screens every page is looked at on (issue 14): a laptop and a phone. */
export const SCREENS = [
  { width: 1280, height: 900 },
  { width: 375, height: 812 },
];

/**
 * Saves the page at both screen sizes, in light and in dark mode, as
 * `screenshots/NAME-WIDTH-THEME.png`, then restores the size and mode it had; checks its
 * controls first.
 */
export async function shoot(page, name) {
  await assertControlsAccessible(page);
  mkdirSync(SCREENSHOTS, { recursive: true });
  const size = page.viewportSize();
  const wasDark = await page.evaluate(() => document.documentElement.classList.contains('dark'));
  await page.mouse.move(0, 0);
  for (const screen of SCREENS) {
    await page.setViewportSize(screen);
    for (const dark of [false, true]) {
      await page.evaluate((on) => document.documentElement.classList.toggle('dark', on), dark);
      // Let layout and colour transitions settle so the picture shows the mode, not the change.
      await page.waitForTimeout(250);
      // Passing toasts and the pointer's hover are left out: the picture is of the screen itself.
      await page.screenshot({
        path: resolve(SCREENSHOTS, `${name}-${screen.width}-${dark ? 'dark' : 'light'}.png`),
        fullPage: true,
        style: 'li.toast-root { visibility: hidden !important; }',
      });
    }
  }
  if (size) await page.setViewportSize(size);
  await page.evaluate((on) => document.documentElement.classList.toggle('dark', on), wasDark);
}

/** The text of the toast on screen (Radix repeats it in a live region, so read the toast itself). */
export async function toastText(page) {
  const toast = page.locator('li.toast-root').first();
  await toast.waitFor({ state: 'visible' });
  return toast.innerText();
}

export async function waitForToast(page, text) {
  await page.locator('li.toast-root', { hasText: text }).first().waitFor({ state: 'visible' });
}

export async function waitForPath(page, path) {
  await page.waitForURL((url) => url.pathname === path);
}

export async function register(page, email, password = PASSWORD) {
  await page.goto('/register');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await waitForToast(page, 'Registration successful');
  await page.waitForURL((url) => url.pathname === '/app' || url.pathname === '/');
}

export async function signIn(page, email, password = PASSWORD) {
  await page.goto('/');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In', exact: true }).click();
  await waitForPath(page, '/app');
}

export async function signOut(page) {
  await page.getByRole('button', { name: 'User menu' }).click();
  await page.getByRole('menuitem', { name: 'Sign out' }).click();
  await waitForToast(page, 'Signed out');
  await waitForPath(page, '/');
}

/** Registers and makes sure the browser ends signed in on /app. */
export async function registerAndSignIn(page, email, password = PASSWORD) {
  await register(page, email, password);
  if (new URL(page.url()).pathname !== '/app') await signIn(page, email, password);
}

export const cards = (page) => page.locator('[data-testid="news-card"]');
export const main = (page) => page.locator('main');
