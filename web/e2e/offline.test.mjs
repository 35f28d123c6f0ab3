// Offline (issue 26): after a first visit the service worker keeps the app, the feed it read
// and what the reader opened; with the network cut the app loads, says it is offline, shows
// them, and a mark made meanwhile reaches the server when the network returns. Sign-out
// drops what was kept of the account.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import { assertNoConsoleErrors, cards, launchBrowser, openPage, registerAndSignIn, signOut } from './helpers.mjs';

const EMAIL = `offline-${Date.now()}@example.test`;
// With the network cut, Chromium logs each request the worker could not make.
const EXPECTED = [/ERR_INTERNET_DISCONNECTED/, /Failed to fetch/, /Failed to load resource/, /FetchEvent/, /no-response/];

/** The paths the worker keeps in the API cache. */
const kept = (page) =>
  page.evaluate(async () => {
    const cache = await caches.open('radar-api');
    return (await cache.keys()).map((request) => new URL(request.url).pathname);
  });

/** What the page's worker and caches hold, for a failure to say why nothing was shown offline. */
const offlineState = (page) =>
  page.evaluate(async () => {
    const caches_ = await Promise.all(
      (await caches.keys()).map(async (name) => {
        const urls = (await (await caches.open(name)).keys()).map((request) => request.url.replace(location.origin, ''));
        return `${name}: ${name.startsWith('workbox-precache') ? `${urls.length} files` : urls.join(' ')}`;
      }),
    );
    return [`worker: ${navigator.serviceWorker.controller?.state ?? 'none'}`, `owner: ${localStorage.getItem('radarOfflineOwner')}`, ...caches_].join('\n');
  });

describe('offline', () => {
  let daemon;
  let browser;
  let session;

  before(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
    session = await openPage(browser, daemon.url);
    await registerAndSignIn(session.page, EMAIL);
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('installs from a manifest and a service worker that takes the page', async () => {
    const { page } = session;
    const manifest = await page.evaluate(async () => (await fetch(document.querySelector('link[rel="manifest"]').href)).json());
    assert.equal(manifest.name, 'Radar');
    assert.equal(manifest.display, 'standalone');
    assert.ok(manifest.icons.some((icon) => icon.sizes === '512x512'));
    await page.waitForFunction(() => navigator.serviceWorker?.controller !== null && navigator.serviceWorker?.controller !== undefined);
    // What the page shows is read again through the worker, which keeps it.
    await page.waitForFunction(async () => {
      const cache = await caches.open('radar-api');
      return (await cache.keys()).some((request) => new URL(request.url).pathname === '/api/news');
    });
  });

  it('loads the app, the feed and an opened story with the network cut, and sends a mark made meanwhile', async () => {
    const { page, context } = session;
    await cards(page).nth(2).waitFor();
    const titles = (await cards(page).locator('h2').allInnerTexts()).map((t) => t.trim());
    const id = await cards(page).nth(1).evaluate((card) => card.dataset.itemId);

    await context.setOffline(true);
    await page.reload();
    await page.getByTestId('offline').waitFor();
    assert.match(await page.getByTestId('offline').innerText(), /^Offline/);
    await cards(page)
      .nth(2)
      .waitFor()
      .catch(async (error) => {
        throw new Error(`no cards offline: ${error.message}\n${await offlineState(page)}\nconsole errors:\n${session.errors.join('\n')}`);
      });
    assert.deepEqual((await cards(page).locator('h2').allInnerTexts()).map((t) => t.trim()), titles);

    // A story opens from what was kept.
    await cards(page).first().click();
    const reader = page.getByTestId('reader');
    await reader.waitFor();
    assert.ok((await page.getByTestId('reader-content').innerText()).length > 40);
    await page.keyboard.press('Escape');
    await reader.waitFor({ state: 'detached' });

    // A mark made offline waits, and reaches the server once the network is back.
    await page.locator(`[data-testid="news-card"][data-item-id="${id}"]`).getByRole('button', { name: 'Hide' }).click();
    assert.match(await page.evaluate(() => localStorage.getItem('radarPendingMarks') ?? ''), new RegExp(id));
    await context.setOffline(false);
    await page.getByTestId('offline').waitFor({ state: 'detached' });
    await page.waitForFunction(() => localStorage.getItem('radarPendingMarks') === null);
    const hidden = await page.evaluate(async () => {
      const { access_token: token } = JSON.parse(localStorage.getItem('radar-auth') ?? '{}');
      return (await (await fetch('/api/hidden', { headers: { Authorization: `Bearer ${token}` } })).json()).map((item) => item.id);
    });
    assert.ok(hidden.includes(id), 'the mark is on the server');
  });

  it('drops what was kept of the account at sign-out', async () => {
    const { page } = session;
    assert.ok((await kept(page)).includes('/api/news'));
    await signOut(page);
    assert.deepEqual(await kept(page), []);
  });

  it('logged no console errors but the cut network’s', () => {
    assertNoConsoleErrors(session.errors, EXPECTED);
  });
});
