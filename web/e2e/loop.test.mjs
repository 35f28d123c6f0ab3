// The reading loop end to end (issue 10): the server owns what each reader sees. A free
// reader's feed stays at the allowance after marks, Drops and TV follow it; a subscriber's
// feed is refilled after marking a whole page read and TV reaches the last story; a revoke
// reaches the open app without a sign-out; a mark made while the daemon is down reaches it
// when it is back; the in-app reader opens, closes and deep-links.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import { assertNoConsoleErrors, cards, launchBrowser, main, openPage, registerAndSignIn } from './helpers.mjs';

const FREE = `loop-free-${Date.now()}@example.test`;
const PREMIUM = `loop-premium-${Date.now()}@example.test`;
// While the daemon is stopped on purpose, Chromium logs the refused connection; the deep
// link past the allowance is answered 403 on purpose.
const EXPECTED = [/ERR_CONNECTION_REFUSED/, /item=[\w-]+: Failed to load resource: .* 403/];

const titles = (page) => page.locator('[data-testid="news-card"] h2').allInnerTexts();
const cardTitled = (page, title) => cards(page).filter({ has: page.getByRole('heading', { name: title, exact: true }) });
const tab = (page, name) => page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: name === 'Feed' ? /^Feed( \d+ unread)?$/ : name, exact: true });

/** The server's own list (`/api/favorites|hidden|read`) for the signed-in page, by id. */
async function serverList(page, kind) {
  return page.evaluate(async (path) => {
    const { access_token: token } = JSON.parse(localStorage.getItem('radar-auth') ?? '{}');
    const answer = await fetch(path, { headers: { Authorization: `Bearer ${token}` } });
    return (await answer.json()).map((item) => item.id);
  }, `/api/${kind}`);
}

/** The answer of a GET made as the signed-in page. */
async function apiGet(page, path) {
  return page.evaluate(async (path) => {
    const { access_token: token } = JSON.parse(localStorage.getItem('radar-auth') ?? '{}');
    return (await fetch(path, { headers: { Authorization: `Bearer ${token}` } })).json();
  }, path);
}

/** Waits until a GET made as the signed-in page answers `field` equal to `value`. */
async function untilApi(page, path, field, value) {
  await page.waitForFunction(
    async ({ path, field, value }) => {
      const { access_token: token } = JSON.parse(localStorage.getItem('radar-auth') ?? '{}');
      const answer = await fetch(path, { headers: { Authorization: `Bearer ${token}` } });
      return (await answer.json())[field] === value;
    },
    { path, field, value },
    { polling: 200 },
  );
}

/** Waits until the feed shows `count` cards, none of them titled as in `gone`. */
async function feedRefilled(page, count, gone) {
  await page.waitForFunction(
    ({ count, gone }) => {
      const shown = [...document.querySelectorAll('[data-testid="news-card"] h2')].map((h) => h.textContent.trim());
      return shown.length === count && shown.every((t) => !gone.includes(t));
    },
    { count, gone },
  );
}

const idOf = async (card) => new URL(await card.getByRole('heading').getByRole('link').getAttribute('href'), 'http://x').searchParams.get('item');

describe('the reading loop', () => {
  let daemon;
  let browser;
  let free;
  let premium;

  before(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
    free = await openPage(browser, daemon.url);
    premium = await openPage(browser, daemon.url);
    await registerAndSignIn(free.page, FREE);
    await registerAndSignIn(premium.page, PREMIUM);
    await daemon.cli(['subscribers', 'grant', PREMIUM]);
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('keeps a free feed at 5 after 3 reads and 2 hides; Drops pays-walls after the 5th; TV shows 1 of 5', async () => {
    const { page } = free;
    await cards(page).nth(4).waitFor();
    const first = await titles(page);
    assert.equal(first.length, 5);
    for (const title of first.slice(0, 3)) await cardTitled(page, title).getByRole('button', { name: 'Mark as read' }).click();
    for (const title of first.slice(3)) await cardTitled(page, title).getByRole('button', { name: 'Hide' }).click();
    await feedRefilled(page, 5, first);
    await main(page).getByRole('link', { name: 'Subscribe Now' }).waitFor();

    await tab(page, 'Drops').click();
    const story = page.getByTestId('drop-story');
    await story.waitFor();
    for (let i = 0; i < 5; i++) {
      assert.equal(await story.getAttribute('data-index'), String(i));
      await page.keyboard.press('j');
      await page.waitForTimeout(350);
    }
    await page.getByRole('heading', { name: 'Premium Content' }).waitFor();

    await page.goto('/tv-mode');
    await page.getByTestId('tv-position').waitFor();
    assert.equal(await page.getByTestId('tv-position').innerText(), '1 of 5');
  });

  it('draws a signed-in reload of the feed without a spinner, the feed asked for once, by the page before its scripts', async () => {
    // Issue 30: the first render waits for the page's chunk (no spinner, no Suspense fallback,
    // whose throttle held the page back 300 ms), and the feed query takes index.html's answer.
    const context = await browser.newContext({ baseURL: daemon.url, storageState: await free.context.storageState() });
    try {
      await context.addInitScript(() => {
        window.__spinnerSeen = false;
        new MutationObserver(() => {
          if (document.querySelector('#root [role="status"]')) window.__spinnerSeen = true;
        }).observe(document, { childList: true, subtree: true });
      });
      const page = await context.newPage();
      const asked = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/api/news') asked.push(request.url());
      });
      await page.goto('/app');
      await cards(page).first().waitFor();
      assert.equal(await page.evaluate(() => window.__spinnerSeen), false, 'no spinner before the first story');
      assert.deepEqual(asked.map((url) => new URL(url).search), [''], 'one first page, asked for once');
    } finally {
      await context.close();
    }
  });

  it('fetches the menus after the first story, and opens one pressed before its code arrived', async () => {
    // Issue 30: Radix's menus are not among the chunks the first story waits for. Their
    // chunks are held back here until released, to press the triggers before they arrive.
    const context = await browser.newContext({ baseURL: daemon.url, storageState: await free.context.storageState() });
    try {
      const release = {};
      for (const chunk of ['user-menu-content', 'mark-read-menu-content', 'list-keys-help-content']) {
        const released = new Promise((resolve) => (release[chunk] = resolve));
        await context.route(new RegExp(`/assets/${chunk}-[^/]*\\.js$`), async (route) => {
          await released;
          await route.continue();
        });
      }
      const page = await context.newPage();
      await page.goto('/app');
      await cards(page).first().waitFor();
      const menus = page.getByRole('menu');

      // A, pressed before the menu's code is there, opens it on its first choice once it is.
      await page.keyboard.press('A');
      await page.waitForTimeout(300);
      assert.equal(await menus.count(), 0, 'no menu before its code');
      release['mark-read-menu-content']();
      await page.getByRole('menuitem', { name: 'All stories' }).and(page.locator(':focus')).waitFor();
      await page.keyboard.press('Escape');
      await menus.first().waitFor({ state: 'detached' });

      // A click on the user menu's trigger, likewise.
      await page.getByRole('button', { name: 'User menu' }).click();
      await page.waitForTimeout(300);
      assert.equal(await menus.count(), 0, 'no menu before its code');
      release['user-menu-content']();
      await page.getByRole('menuitem', { name: 'Profile' }).waitFor();
      await page.keyboard.press('Escape');
      await menus.first().waitFor({ state: 'detached' });

      // Focus on a trigger goes on to the control's own trigger when its code arrives.
      await page.locator('[data-action="keys-help"]').focus();
      release['list-keys-help-content']();
      await page.locator('[data-action="keys-help"][data-state]').waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.matches('[data-action="keys-help"][data-state]')), true, 'focus on the loaded trigger');
    } finally {
      await context.close();
    }
  });

  it('opens a story in the in-app reader; Esc and back close it; it deep-links', async () => {
    const { page } = free;
    await page.goto('/app');
    const card = cards(page).first();
    const title = (await card.locator('h2').innerText()).trim();
    const id = await idOf(card);
    await card.click();
    const reader = page.getByRole('dialog', { name: title });
    await reader.waitFor();
    assert.ok((await page.getByTestId('reader-content').innerText()).length > 40);
    assert.equal(new URL(page.url()).searchParams.get('item'), id);
    // Source, date and the source link are the server's item's.
    const item = await page.evaluate(async (path) => {
      const { access_token: token } = JSON.parse(localStorage.getItem('radar-auth') ?? '{}');
      return (await fetch(path, { headers: { Authorization: `Bearer ${token}` } })).json();
    }, `/api/news/${encodeURIComponent(id)}`);
    assert.equal(await reader.locator('time').getAttribute('datetime'), item.published_date);
    await reader.getByText(item.source, { exact: true }).waitFor();
    const link = reader.getByRole('link', { name: new RegExp(`^Read at ${item.source}`) });
    assert.equal(await link.getAttribute('href'), item.url);
    assert.equal(await link.getAttribute('target'), '_blank');
    // Opening it read it: the reader offers to take that back.
    await reader.getByRole('button', { name: 'Mark as unread' }).waitFor();
    await page.keyboard.press('Escape');
    await reader.waitFor({ state: 'detached' });
    assert.equal(new URL(page.url()).search, '');

    await card.click();
    await reader.waitFor();
    await page.goBack();
    await reader.waitFor({ state: 'detached' });

    await page.goto(`/app?view=feed&item=${encodeURIComponent(id)}`);
    await page.getByRole('dialog', { name: title }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await cards(page).first().waitFor();
  });

  it('steps through the list from the reader, with its reading time and progress', async () => {
    const { page } = free;
    await page.goto('/app');
    await cards(page).nth(2).waitFor();
    const ids = await cards(page).evaluateAll((all) => all.map((card) => card.dataset.itemId));
    const titles = await cards(page).locator('h2').allInnerTexts();
    await cards(page).nth(1).click();
    const reader = page.getByTestId('reader');
    await reader.waitFor();
    const words = (await page.getByTestId('reader-content').innerText()).split(/\s+/).filter(Boolean).length;
    await reader.getByText(`${Math.max(1, Math.round(words / 230))} min read`).waitFor();

    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Next story' }).click();
    await page.getByRole('dialog', { name: titles[2].trim() }).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('item'), ids[2]);
    await dialog.getByRole('button', { name: 'Previous story' }).click();
    await dialog.getByRole('button', { name: 'Previous story' }).click();
    await page.getByRole('dialog', { name: titles[0].trim() }).waitFor();
    assert.equal(await dialog.getByRole('button', { name: 'Previous story' }).count(), 0, 'the first story has none before it');

    // The bar follows the scroll: none at the top, full at the end.
    const scroller = dialog;
    // A story that fits the screen is read to its end as it opens; make the screen short.
    await page.setViewportSize({ width: 1280, height: 300 });
    await scroller.evaluate((el) => el.scrollTo(0, 0));
    await page.waitForFunction(() => document.querySelector('[data-testid="reading-progress"]')?.getAttribute('data-progress') === '0');
    await scroller.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await page.waitForFunction(() => document.querySelector('[data-testid="reading-progress"]')?.getAttribute('data-progress') === '100');

    await page.setViewportSize({ width: 1280, height: 900 });
    // Stepping replaced the reader's history entry: one Esc (or back) returns to the list.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(new URL(page.url()).search, '');
  });

  it('keeps a mark made while the daemon is down and sends it when it is back', async () => {
    const { page } = free;
    await page.goto('/app');
    const card = cards(page).first();
    await card.waitFor();
    const title = (await card.locator('h2').innerText()).trim();
    const id = await idOf(card);
    await daemon.halt();
    await cardTitled(page, title).getByRole('button', { name: 'Hide' }).click();
    await page.locator('li.toast-root', { hasText: 'Server had issues hiding this item' }).first().waitFor();
    assert.match(await page.evaluate(() => localStorage.getItem('radarPendingMarks') ?? ''), new RegExp(id));
    await daemon.resume();
    await page.evaluate(() => window.dispatchEvent(new Event('online')));
    await page.waitForFunction(() => localStorage.getItem('radarPendingMarks') === null);
    assert.ok((await serverList(page, 'hidden')).includes(id), 'the mark is on the server');
  });

  it('refills a subscriber’s feed after all 20 are read, and Read More still works', async () => {
    const { page } = premium;
    await page.goto('/app');
    await page.getByRole('link', { name: 'Radar Premium' }).waitFor();
    await cards(page).nth(19).waitFor();
    const first = await titles(page);
    assert.equal(first.length, 20);
    for (const title of first) await cardTitled(page, title).getByRole('button', { name: 'Mark as read' }).click();
    await feedRefilled(page, 20, first);
    await main(page).getByRole('button', { name: 'Read More' }).click();
    await cards(page).nth(39).waitFor();
    assert.equal((await serverList(page, 'read')).length, 20);
  });

  it('shows a free reader the subscribe path for a deep link past the allowance', async () => {
    const beyond = await idOf(cards(premium.page).nth(30));
    await free.page.goto(`/app?view=feed&item=${encodeURIComponent(beyond)}`);
    const reader = free.page.getByRole('dialog');
    await reader.getByRole('heading', { name: 'Premium Content' }).waitFor();
    await reader.getByRole('link', { name: 'Subscribe Now' }).waitFor();
  });

  it('takes a subscriber’s TV mode to the last story, with the keyboard', async () => {
    const { page } = premium;
    await page.goto('/tv-mode');
    const position = page.getByTestId('tv-position');
    await position.waitFor();
    const total = Number((await position.innerText()).split(' of ')[1]);
    assert.ok(total > 20, `TV reaches more than one page (${total})`);
    for (let n = 2; n <= total; n++) {
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((want) => document.querySelector('[data-testid="tv-position"]')?.textContent === want, `${n} of ${total}`);
    }
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((want) => document.querySelector('[data-testid="tv-position"]')?.textContent === want, `1 of ${total}`);
    await page.keyboard.press(' ');
    assert.equal(await page.getByTestId('tv-countdown').innerText(), 'Paused');
    await page.keyboard.press('Escape');
    await page.waitForURL((url) => url.pathname !== '/tv-mode');
  });

  it('reads a story by opening it: dimmed until the feed reloads, counted by the server; favourites and the off switch are left alone', async () => {
    const { page } = premium;
    await page.goto('/app');
    await cards(page).nth(2).waitFor();
    const unread = async () => (await apiGet(page, '/api/unread')).unread;
    const isRead = async (id) => (await apiGet(page, `/api/read/check/${encodeURIComponent(id)}`)).read;
    const badge = tab(page, /^Feed/).getByTestId('unread-count');
    const before = await unread();
    await page.waitForFunction((n) => document.title.startsWith(`(${n}) `), before);
    assert.match(await badge.innerText(), new RegExp(`^${before}`));

    const [first, second, third] = await Promise.all([0, 1, 2].map((i) => cards(page).nth(i).evaluate((card) => card.dataset.itemId)));
    const card = (id) => page.locator(`[data-testid="news-card"][data-item-id="${id}"]`);
    await card(first).click();
    await page.getByTestId('reader').waitFor();
    await untilApi(page, `/api/read/check/${encodeURIComponent(first)}`, 'read', true);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal(await card(first).getAttribute('data-read'), 'true', 'it stays in the feed, dimmed');
    assert.equal(await unread(), before - 1);
    await page.waitForFunction((n) => document.title.startsWith(`(${n}) `), before - 1);
    assert.match(await badge.innerText(), new RegExp(`^${before - 1}`));

    // A favourite opened from the feed stays a favourite.
    await card(second).getByRole('button', { name: 'Favorite' }).click();
    await page.waitForFunction(() => localStorage.getItem('radarPendingMarks') === null);
    await card(second).click();
    await page.getByTestId('reader').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.ok((await serverList(page, 'favorites')).includes(second));
    assert.equal(await isRead(second), false);

    // With the switch off in the profile, opening leaves a story unread.
    await page.goto('/profile');
    const setting = page.getByRole('checkbox', { name: /Mark stories read when I open them/ });
    assert.equal(await setting.isChecked(), true);
    await setting.click();
    await untilApi(page, '/api/user/profile', 'markOnOpen', false);
    await page.goto(`/app?view=feed&item=${encodeURIComponent(third)}`);
    await page.getByTestId('reader').waitFor();
    await page.keyboard.press('Escape');
    assert.equal(await isRead(third), false);
    assert.equal(await unread(), before - 1);

    // A reload takes the story read on opening out of the feed.
    await page.reload();
    await card(third).waitFor();
    assert.equal(await card(first).count(), 0);
    await page.goto('/profile');
    await setting.click();
    await untilApi(page, '/api/user/profile', 'markOnOpen', true);
  });

  it('marks the whole feed read with one cut-off, and Undo brings it back', async () => {
    const { page } = premium;
    await page.goto('/app');
    await cards(page).nth(19).waitFor();
    const before = (await apiGet(page, '/api/unread')).unread;
    assert.ok(before > 20);
    await page.getByRole('button', { name: 'Mark feed as read' }).click();
    await page.getByRole('menuitem', { name: 'All stories' }).click();
    await page.locator('li.toast-root', { hasText: 'Marked as read' }).waitFor();
    await page.getByText('You are all caught up.', { exact: false }).waitFor();
    assert.equal(await cards(page).count(), 0);
    assert.equal((await apiGet(page, '/api/unread')).unread, 0);
    assert.equal(await tab(page, /^Feed/).getByTestId('unread-count').count(), 0);
    // Nothing was marked one by one: the Read list is what it was.
    assert.equal((await serverList(page, 'read')).length, 21);

    await page.locator('li.toast-root').getByRole('button', { name: 'Undo' }).click();
    await page.locator('li.toast-root', { hasText: 'Undone' }).waitFor();
    await cards(page).nth(19).waitFor();
    assert.equal((await apiGet(page, '/api/unread')).unread, before);
    await page.waitForFunction((n) => document.title.startsWith(`(${n}) `), before);
  });

  it('downgrades an open app at once when the subscription is revoked', async () => {
    const { page } = premium;
    await page.goto('/app');
    await page.getByRole('link', { name: 'Radar Premium' }).waitFor();
    await daemon.cli(['subscribers', 'revoke', PREMIUM]);
    // What the browser does when the reader comes back to the tab; the 30 s re-check does the same unasked.
    await page.evaluate(() => window.dispatchEvent(new Event('visibilitychange')));
    await page.getByRole('link', { name: 'Radar', exact: true }).waitFor();
    await main(page).getByRole('link', { name: 'Subscribe Now' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="news-card"]').length === 5);
    assert.equal(await main(page).getByRole('button', { name: 'Key takeaways' }).count(), 0);
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(free.errors, EXPECTED);
    assertNoConsoleErrors(premium.errors);
  });
});
