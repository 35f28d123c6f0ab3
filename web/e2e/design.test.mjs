// The web app as a reader (issue 14): per-route titles, the inline configuration, the one-row
// phone header, cards (density, dimmed read items, labelled actions, keyboard), Drops that fit a
// long story on a phone and swipe by mouse drag without selecting text, Drops keys, and the
// designed empty states of a store with no items.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import { assertNoConsoleErrors, cards, holdAppCode, launchBrowser, openPage, registerAndSignIn, shoot, signOut } from './helpers.mjs';

const EMAIL = `design-${Date.now()}@example.test`;
const LONG = Array.from({ length: 40 }, (_, i) => `Sentence ${i + 1} of a story far too long to be shown whole on a phone.`).join(' ');

const dropIndex = (page) => page.getByTestId('drop-story').getAttribute('data-index');
const title = (page) => page.evaluate(() => document.title);

describe('design', () => {
  let daemon;
  let browser;
  let page;
  let errors;

  before(async () => {
    daemon = await startDaemon();
    // The newest item has a Drops text that cannot fit a phone at 24 px.
    await daemon.cli(['items', 'add', '--title', 'A very long story', '--summary', 'Long.', '--short', LONG, '--content', `${LONG}\n\nThe end.`]);
    browser = await launchBrowser();
    let context;
    ({ context, page, errors } = await openPage(browser, daemon.url));
    // Sharing opens the professional network; this machine has no way out, so it is answered locally.
    await context.route(/^https:\/\/www\.linkedin\.com\//, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>share</title><link rel="icon" href="data:,">' }),
    );
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('names every route in the document title', async () => {
    for (const [path, want] of [
      ['/', 'AI-Powered News Experience · Radar'],
      ['/register', 'Sign up · Radar'],
      ['/forgot-password', 'Forgot password · Radar'],
      ['/nowhere', 'Page not found · Radar'],
    ]) {
      await page.goto(path);
      await page.waitForFunction((t) => document.title === t, want);
    }
    await registerAndSignIn(page, EMAIL);
    for (const [path, want] of [
      // Signed in, the title starts with what is left to read (a free reader's allowance).
      ['/app', '(5) Feed · Radar'],
      ['/app?view=drops', '(5) Drops · Radar'],
      ['/app?view=trash', '(5) Trash · Radar'],
      ['/profile', '(5) Profile · Radar'],
      ['/weekly-summary', '(5) Weekly AI Summary · Radar'],
      ['/subscribe', '(5) Get Premium · Radar'],
      ['/tv-mode', 'TV mode · Radar'],
    ]) {
      await page.goto(path);
      await page.waitForFunction((t) => document.title === t, want);
    }
    assert.equal(await title(page), 'TV mode · Radar');
  });

  it('starts from the configuration inlined in the page, without asking for it', async () => {
    const asked = [];
    const listener = (request) => asked.push(new URL(request.url()).pathname);
    page.on('request', listener);
    await page.goto('/app');
    await cards(page).first().waitFor();
    page.off('request', listener);
    assert.ok(await page.locator('script#radar-config').count(), 'index.html carries the config');
    assert.ok(!asked.includes('/api/config'), `requests: ${asked.join(' ')}`);
    assert.equal(asked.filter((p) => p === '/api/news').length, 1, 'the feed is asked for once');
  });

  it('asks for eager compiling of the scripts a first load runs, and of no other', async () => {
    const hint = '//# allFunctionsCalledOnLoad\n';
    const html = await (await page.request.get('/app')).text();
    const attr = (re) => [...html.matchAll(re)].map((m) => m[1].replace(/^\//, ''));
    // The entry, its static imports, and what the signed-in first pages preload.
    const routes = JSON.parse(/\{"\/app":\[[^}]*\}/.exec(html)?.[0] ?? '{}');
    const first = new Set([...attr(/<script type="module" crossorigin src="([^"]+)"/g), ...attr(/<link rel="modulepreload" crossorigin href="([^"]+)"/g), ...Object.values(routes).flat()]);
    assert.ok(routes['/app']?.length && first.size >= 4, `first load: ${[...first].join(' ')}`);
    const script = async (file) => (await page.request.get(`/${file}`, { headers: { 'accept-encoding': 'br, gzip' } })).text();
    for (const file of first) assert.ok((await script(file)).startsWith(hint), `${file} has no compile hint`);
    // Every other chunk, as the entry's map of lazy imports names them: loaded on demand.
    const entry = [...first].find((f) => /^assets\/index-/.test(f));
    const lazy = JSON.parse(/m\.f=(\[[^\]]*\])/.exec(await script(entry))?.[1] ?? '[]').filter((f) => !first.has(f));
    assert.ok(lazy.length >= 10, `lazy chunks: ${lazy.join(' ')}`);
    for (const file of lazy) assert.ok(!(await script(file)).startsWith(hint), `${file} is compiled eagerly`);
  });

  it("draws a returning reader's first stories before the app's code arrives, then gives way to the app", async () => {
    // A reader of their own: signing out at the end must not end this suite's session.
    const first = await openPage(browser, daemon.url, { width: 390, height: 844 });
    await registerAndSignIn(first.page, `first-paint-${Date.now()}@example.test`);
    await cards(first.page).first().waitFor();
    await first.page.waitForFunction(() => localStorage.getItem('radar-first-paint'));
    const titles = await cards(first.page).locator('h2').allInnerTexts();
    const storageState = await first.context.storageState();

    // The next visit, with the app's entry script held back: what is drawn is the first paint's.
    const next = await browser.newContext({ baseURL: daemon.url, storageState, viewport: { width: 390, height: 844 } });
    try {
      // TV mode has an early answer too, but nothing for the first paint to draw: it is not asked for.
      const tv = await next.newPage();
      const asked = [];
      tv.on('request', (request) => asked.push(new URL(request.url()).pathname));
      await tv.goto('/tv-mode');
      await tv.getByTestId('tv-position').waitFor();
      assert.ok(asked.includes('/api/news'), 'TV mode read the feed');
      assert.deepEqual(asked.filter((path) => path.includes('first-paint')), [], 'TV mode downloaded the first paint');
      await tv.close();

      const tab = await next.newPage();
      const release = await holdAppCode(tab);
      await tab.goto('/app', { waitUntil: 'commit' });
      const painted = tab.locator('[data-first-paint=""] article');
      await painted.first().waitFor();
      assert.deepEqual(await painted.locator('h2').allInnerTexts(), titles, "the early answer's stories, in order");
      const standIn = await tab.evaluate(() => {
        const host = document.querySelector('[data-first-paint=""]');
        return { inert: host.inert, hidden: host.getAttribute('aria-hidden'), testIds: host.querySelectorAll('[data-testid]').length, app: document.querySelectorAll('[data-testid="news-card"]').length };
      });
      assert.deepEqual(standIn, { inert: true, hidden: 'true', testIds: 0, app: 0 }, 'an inert stand-in, before the app');
      const before = await painted.first().locator('h2').boundingBox();

      release();
      await cards(tab).first().waitFor();
      assert.equal(await tab.locator('[data-first-paint=""]').count(), 0, 'the app replaced the stand-in');
      assert.deepEqual(await cards(tab).locator('h2').allInnerTexts(), titles);
      assert.deepEqual(await cards(tab).first().locator('h2').boundingBox(), before, 'the first story did not move');
    } finally {
      await next.close();
    }

    // Signing out drops the snapshot: the next account does not see this one's page.
    await signOut(first.page);
    assert.equal(await first.page.evaluate(() => localStorage.getItem('radar-first-paint')), null);
    await first.context.close();
  });

  it('keeps the phone header to one row, with the test checkout in the menu', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto('/app');
    await cards(page).first().waitFor();
    const header = await page.locator('header').first().boundingBox();
    assert.ok(header.height <= 64, `header is ${header.height}px tall`);
    assert.equal(await page.locator('header').getByRole('button', { name: /^Test checkout/ }).isVisible(), false);
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: /^Test checkout/ }).waitFor();
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.locator('header').getByRole('button', { name: /^Test checkout/ }).waitFor();
  });

  it('draws labelled, keyboard-reachable cards in two densities', async () => {
    await page.goto('/app');
    const card = cards(page).first();
    await card.waitFor();
    // The action shows its word, not only an icon, and its name holds that word (WCAG 2.5.3).
    assert.equal((await card.getByRole('button', { name: 'Favorite', pressed: false }).innerText()).trim(), 'Favorite');
    await card.getByRole('heading').getByRole('link').focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Favorite');
    await shoot(page, 'feed-focused');

    await page.getByRole('button', { name: 'Compact' }).click();
    await page.waitForFunction(() => !document.querySelector('[data-testid="news-card"] p'));
    await page.reload();
    await cards(page).first().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Compact' }).getAttribute('aria-pressed'), 'true');
    await shoot(page, 'feed-compact');
    await page.getByRole('button', { name: 'Comfortable' }).click();
  });

  it('dims read items where they appear', async () => {
    await page.goto('/app');
    const card = cards(page).nth(1);
    const heading = (await card.locator('h2').innerText()).trim();
    const [popup] = await Promise.all([page.context().waitForEvent('page'), card.getByRole('button', { name: 'Share on LinkedIn' }).click()]);
    await popup.close();
    await cards(page).filter({ hasText: heading }).getByRole('button', { name: 'Mark as read' }).click();
    await page.goto('/app?view=shared');
    const shared = cards(page).filter({ hasText: heading });
    await shared.waitFor();
    assert.ok(Number(await shared.evaluate((el) => getComputedStyle(el).opacity)) < 1, 'a read item is dimmed');
  });

  it('fits a long story on a phone: nothing clipped, a fade and Read more', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto('/app?view=drops');
    await page.getByTestId('drop-story').waitFor();
    await page.waitForTimeout(200);
    const fit = await page.evaluate(() => {
      const section = document.querySelector('section[aria-label="Drops"]').getBoundingClientRect();
      const box = document.querySelector('[data-testid="drop-text-box"]');
      const text = document.querySelector('[data-testid="drop-text"]');
      const more = [...document.querySelectorAll('a')].find((a) => a.textContent.trim() === 'Read more').getBoundingClientRect();
      const story = [...document.querySelectorAll('a')].find((a) => a.textContent.trim() === 'Read story').getBoundingClientRect();
      const nav = document.querySelectorAll('nav[aria-label="Views"]');
      const bar = [...nav].find((n) => n.getBoundingClientRect().height > 0).getBoundingClientRect();
      return {
        pageScrolls: document.documentElement.scrollHeight > window.innerHeight,
        sectionBottom: section.bottom,
        barTop: bar.top,
        overflows: box.dataset.overflows === 'true',
        fontSize: parseFloat(getComputedStyle(text).fontSize),
        moreInside: more.bottom <= box.getBoundingClientRect().bottom && more.top >= box.getBoundingClientRect().top,
        storyVisible: story.bottom <= section.bottom,
      };
    });
    assert.equal(fit.pageScrolls, false, 'the page does not scroll');
    assert.ok(fit.sectionBottom <= fit.barTop, `the card (${fit.sectionBottom}) ends above the tab bar (${fit.barTop})`);
    assert.ok(fit.overflows && fit.fontSize === 24, `cut at the smallest size (${fit.fontSize})`);
    assert.ok(fit.moreInside && fit.storyVisible, 'Read more and the footer are on screen');
    await shoot(page, 'drops-long');
    await page.getByRole('link', { name: 'Read more' }).click();
    await page.getByRole('dialog', { name: 'A very long story' }).waitFor();
    assert.match(await page.getByTestId('reader-content').innerText(), /Sentence 40 .*\n+The end\./s);
    await shoot(page, 'reader');
    await page.keyboard.press('Escape');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('swipes Drops by mouse drag without selecting text, and steps with the keys', async () => {
    await page.goto('/app?view=drops');
    await page.getByTestId('drop-text').waitFor();
    const box = await page.getByTestId('drop-text').boundingBox();
    const x = box.x + 40;
    const y = box.y + Math.min(box.height, 300) - 20;
    const drag = async (dy) => {
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.move(x, y + dy / 2, { steps: 4 });
      await page.mouse.move(x, y + dy, { steps: 4 });
      await page.mouse.up();
      await page.waitForTimeout(350);
    };
    assert.equal(await dropIndex(page), '0');
    await drag(-180);
    await shoot(page, 'drops-story');
    assert.equal(await dropIndex(page), '1');
    assert.equal(await page.evaluate(() => window.getSelection()?.toString() ?? ''), '');
    await drag(180);
    assert.equal(await dropIndex(page), '0');

    for (const [key, want] of [
      ['ArrowDown', '1'],
      [' ', '2'],
      ['PageDown', '3'],
      ['ArrowUp', '2'],
      ['k', '1'],
      ['ArrowRight', '2'],
      ['ArrowLeft', '1'],
    ]) {
      await page.keyboard.press(key);
      await page.waitForTimeout(320);
      assert.equal(await dropIndex(page), want, `after ${key}`);
    }
    await page.getByRole('button', { name: 'Previous' }).click();
    assert.equal(await dropIndex(page), '0');
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(errors, [/404 \(Not Found\)/]);
  });
});

describe('designed empty states', () => {
  let daemon;
  let browser;
  let page;
  let errors;

  before(async () => {
    daemon = await startDaemon({ args: ['--no-demo'] });
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, daemon.url));
    await registerAndSignIn(page, `empty-${Date.now()}@example.test`);
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('explains an empty feed, Drops, Favs and TV mode and offers the next step', async () => {
    for (const [path, name, heading] of [
      ['/app', 'empty-feed', 'No news items available'],
      ['/app?view=drops', 'empty-drops', 'No news items available'],
      ['/app?view=favorites', 'empty-favs', 'No Favs Yet'],
      ['/app?view=read', 'empty-read', 'No read items'],
    ]) {
      await page.goto(path);
      const state = page.getByTestId('empty-state');
      await state.getByRole('heading', { name: heading }).waitFor();
      assert.ok((await state.locator('svg').count()) >= 1, `${path} has an icon`);
      assert.ok((await state.locator('p').innerText()).length > 10, `${path} explains`);
      await shoot(page, name);
    }
    await page.goto('/tv-mode');
    await page.getByTestId('empty-state').getByRole('heading', { name: 'No news items available' }).waitFor();
    assert.equal(await page.getByTestId('tv-countdown').count(), 0, 'nothing ticks');
    await page.getByRole('link', { name: 'Exit TV Mode' }).waitFor();
    await shoot(page, 'empty-tv-mode');
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(errors);
  });
});
