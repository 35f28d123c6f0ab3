// axe-core on every route, in light and in dark, as a visitor, a free reader and a
// subscriber, and with the user menu, a dialog and the reader open: no serious or critical
// violation of WCAG 2.0 / 2.1 A and AA, nor of `label-content-name-mismatch` (WCAG 2.5.3,
// which axe runs only when asked), and no violation at all of the two best practices a
// screen-reader user navigates by: headings in order, and all content in landmarks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import { cards, launchBrowser, main, openPage, registerAndSignIn, SCREENSHOTS } from './helpers.mjs';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const EXTRA_RULES = ['label-content-name-mismatch', 'heading-order', 'region'];

/** The serious and critical violations on the page as it is now, and any of the extra rules, one line per element. */
async function violations(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(
    async ({ tags, extra }) => {
      const rules = [...new Set([...window.axe.getRules(tags).map((r) => r.ruleId), ...extra])];
      const result = await window.axe.run(document, { runOnly: { type: 'rule', values: rules }, resultTypes: ['violations'] });
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical' || extra.includes(v.id))
        .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1, 2).join('').trim()}`));
    },
    { tags: TAGS, extra: EXTRA_RULES },
  );
}

/**
 * The page's faults in light and in dark (the colour transitions settled first), each
 * distinct one once with how often it was seen (many cards repeat one fault), prefixed
 * with `what`.
 */
async function faults(page, what) {
  const found = new Map();
  for (const dark of [false, true]) {
    await page.evaluate((on) => document.documentElement.classList.toggle('dark', on), dark);
    await page.waitForTimeout(250);
    for (const line of await violations(page)) {
      const key = `${what}, ${dark ? 'dark' : 'light'}: ${line.replace(/:nth-child\(\d+\)/g, '')}`;
      found.set(key, (found.get(key) ?? 0) + 1);
    }
  }
  await page.evaluate(() => document.documentElement.classList.remove('dark'));
  return [...found].map(([line, n]) => (n > 1 ? `${line} (×${n})` : line));
}

/** Collects every page's faults of one walk, so a run reports them all at once. */
function audit(page) {
  const all = [];
  return {
    check: async (what) => all.push(...(await faults(page, what))),
    done: () => assert.deepEqual(all, [], `faults found on ${page.url()} and before`),
  };
}

/** Goes to `path` and waits until the page has drawn its main content. */
async function visit(page, path, ready) {
  await page.goto(path);
  await ready();
}

describe('accessibility', () => {
  let daemon;
  let browser;

  before(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('the public pages', async () => {
    const { page } = await openPage(browser, daemon.url);
    const a11y = audit(page);
    await visit(page, '/', () => page.getByRole('button', { name: 'Sign In', exact: true }).waitFor());
    await a11y.check('landing');
    await visit(page, '/register', () => page.getByRole('button', { name: 'Create account' }).waitFor());
    await a11y.check('register');
    await visit(page, '/forgot-password', () => page.getByRole('heading').first().waitFor());
    await a11y.check('forgot password');
    await visit(page, '/no-such-page', () => page.getByRole('heading').first().waitFor());
    await a11y.check('not found');
    await page.context().close();
    a11y.done();
  });

  it('the user menu follows the menu pattern with the keyboard', async () => {
    const { context, page } = await openPage(browser, daemon.url);
    await registerAndSignIn(page, `a11y-menu-${Date.now()}@example.test`);
    const trigger = page.getByRole('button', { name: 'User menu' });
    const focusOn = (text, why) =>
      page
        .waitForFunction((t) => document.activeElement?.textContent?.trim() === t, text, { timeout: 2000 })
        .catch(async () => assert.fail(`${why ?? 'focus'}: on "${await page.evaluate(() => document.activeElement?.textContent?.trim())}", not "${text}"`));
    await trigger.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menu').waitFor();
    await focusOn('Get Premium', 'Enter opens the menu on its first item');
    await page.keyboard.press('ArrowDown');
    await focusOn('Test Stripe');
    await page.keyboard.press('End');
    await focusOn('Sign out');
    await page.keyboard.press('ArrowDown');
    await focusOn('Get Premium', 'the arrows wrap around');
    await page.keyboard.press('ArrowUp');
    await focusOn('Sign out');
    await page.keyboard.press('Escape');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    // The menu hands focus back as it unmounts, which may come a frame after it is gone.
    await page
      .waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'User menu', null, { timeout: 2000 })
      .catch(async () => assert.fail(`Esc gives focus back: focus is on ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 80))}`));

    // Tab leaves the menu: it closes, and focus does not stay behind in it.
    await page.keyboard.press('ArrowDown');
    await page.getByRole('menu').waitFor();
    await focusOn('Get Premium');
    await page.keyboard.press('Tab');
    await page.getByRole('menu').waitFor({ state: 'detached' });
    await page
      .waitForFunction(
        () => document.activeElement !== document.body && document.activeElement?.getAttribute('aria-label') !== 'User menu',
        null,
        { timeout: 2000 },
      )
      .catch(() => assert.fail('Tab takes focus on from the menu, neither back to the trigger nor to the page'));

    // An item chosen with the keyboard does what a click does.
    await trigger.focus();
    await page.keyboard.press('Enter');
    await page.getByRole('menuitem', { name: 'Profile' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL((url) => url.pathname === '/profile');
    await context.close();
  });

  it('keeps keyboard focus on a card after a mark takes one away and after the reader closes', async () => {
    const { page } = await openPage(browser, daemon.url);
    await registerAndSignIn(page, `a11y-focus-${Date.now()}@example.test`);
    await cards(page).nth(4).waitFor();
    const ids = () => cards(page).evaluateAll((all) => all.map((card) => card.dataset.itemId));
    const focusedCard = () => page.evaluate(() => document.activeElement?.closest('[data-testid="news-card"]')?.dataset.itemId ?? document.activeElement?.tagName);
    const focusedIsTitle = () => page.evaluate(() => Boolean(document.activeElement?.matches('[data-testid="news-card"] h2 a')));
    const focusSettlesOn = (id, why) =>
      page
        .waitForFunction((want) => document.activeElement?.closest('[data-testid="news-card"]')?.dataset.itemId === want, id, { timeout: 3000 })
        .catch(async () => assert.fail(`${why}: focus is on ${await focusedCard()}, not the card of ${id}`));

    // Hide by keyboard: focus goes to the card that followed.
    let before = await ids();
    await cards(page).first().getByRole('button', { name: 'Hide' }).focus();
    await page.keyboard.press('Enter');
    await focusSettlesOn(before[1], 'after Hide on the first card');
    assert.equal(await focusedIsTitle(), true, "the next card's title takes focus");

    // Read on the last card: focus goes to the card before it.
    before = await ids();
    const lastIndex = before.length - 1;
    await cards(page).nth(lastIndex).getByRole('button', { name: 'Mark as read' }).focus();
    await page.keyboard.press('Enter');
    // The previous card, or, when the free feed's refill came first, the new card in its place.
    await page
      .waitForFunction(
        ({ previous, known }) => {
          const id = document.activeElement?.closest('[data-testid="news-card"]')?.dataset.itemId;
          return id === previous || (id !== undefined && !known.includes(id));
        },
        { previous: before[lastIndex - 1], known: before },
        { timeout: 3000 },
      )
      .catch(async () => assert.fail(`after Mark as read on the last card: focus is on ${await focusedCard()}`));

    // The reader opened with Enter gives focus back to its card on Esc.
    before = await ids();
    await cards(page).nth(1).locator('h2 a').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('reader').waitFor();
    // Esc is heard once the dialog has taken focus (its listeners are set up by then).
    await page.waitForFunction(() => document.activeElement?.closest('[role="dialog"]'));
    await page.keyboard.press('Escape');
    await page.getByTestId('reader').waitFor({ state: 'detached' });
    await focusSettlesOn(before[1], 'after Esc from the reader');

    // A hide from inside the reader: on closing, the card that took its place has focus.
    await cards(page).nth(1).locator('h2 a').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('reader').getByRole('button', { name: 'Hide' }).click();
    await page.keyboard.press('Escape');
    await page.getByTestId('reader').waitFor({ state: 'detached' });
    await page.waitForFunction((gone) => !document.querySelector(`[data-item-id="${gone}"]`), before[1]);
    await focusSettlesOn((await ids())[1], 'after a hide in the reader and Esc');
    await page.context().close();
  });

  it('drives the list with the keys of its table, lists them on ?, and switches them off', async () => {
    const { context, page } = await openPage(browser, daemon.url);
    // The source and the share open new tabs outside; this machine answers them itself.
    await context.route(/^https:\/\//, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>away</title><link rel="icon" href="data:,">' }));
    await registerAndSignIn(page, `a11y-keys-${Date.now()}@example.test`);
    await cards(page).nth(4).waitFor();
    const ids = () => cards(page).evaluateAll((all) => all.map((card) => card.dataset.itemId));
    const focusedCard = () => page.evaluate(() => document.activeElement?.closest('[data-testid="news-card"]')?.dataset.itemId ?? null);
    const press = async (key) => {
      await page.keyboard.press(key);
      await page.waitForTimeout(50);
    };
    let list = await ids();

    await press('j');
    assert.equal(await focusedCard(), list[0], 'j from nowhere focuses the first story');
    await press('j');
    await press('j');
    assert.equal(await focusedCard(), list[2]);
    await press('k');
    assert.equal(await focusedCard(), list[1]);
    await press('G');
    assert.equal(await focusedCard(), list.at(-1));
    await press('g');
    assert.equal(await focusedCard(), list[0]);

    // J and K skip what is read: the second story, read by opening it, stays dimmed in place.
    await press('j');
    await press('Enter');
    await page.getByTestId('reader').waitFor();
    // Esc is heard once the dialog has taken focus (its listeners are set up by then).
    await page.waitForFunction(() => document.activeElement?.closest('[role="dialog"]'));
    await press('Escape');
    await page.getByTestId('reader').waitFor({ state: 'detached' });
    await page.locator(`[data-item-id="${list[1]}"][data-read]`).waitFor();
    assert.equal(await focusedCard(), list[1]);
    await press('j');
    await press('K');
    assert.equal(await focusedCard(), list[0], 'K skips the read story');
    await press('J');
    assert.equal(await focusedCard(), list[2], 'J skips it too');
    // n and N step through results as j and k do, read or not.
    await press('N');
    assert.equal(await focusedCard(), list[1]);
    await press('n');
    assert.equal(await focusedCard(), list[2]);
    await press('g');
    assert.equal(await focusedCard(), list[0]);

    await press('f');
    await cards(page).first().getByRole('button', { name: 'Favorite', pressed: true }).waitFor();
    const opened = context.waitForEvent('page');
    await press('o');
    await (await opened).close();
    const shared = context.waitForEvent('page');
    await press('s');
    await (await shared).close();

    // m and x act on the focused story, and focus goes on to the next one.
    await press('j');
    await press('j');
    assert.equal(await focusedCard(), list[2]);
    await press('m');
    await page.waitForFunction((gone) => !document.querySelector(`[data-item-id="${gone}"]`), list[2]);
    const reread = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/news' && r.request().method() === 'GET');
    await press('x');
    await page.waitForFunction((gone) => !document.querySelector(`[data-item-id="${gone}"]`), list[3]);
    // The hide read the feed again, which leaves the story read by opening out: it stays, dimmed.
    await reread;
    await page.waitForTimeout(200);
    assert.equal(await page.locator(`[data-item-id="${list[1]}"][data-read]`).count(), 1, 'the story read by opening stays in place');
    assert.deepEqual((await ids()).slice(0, 2), [list[0], list[1]]);
    await page.goto('/app?view=trash');
    await cards(page).first().waitFor();
    await press('j');
    await press('u');
    await page.getByRole('heading', { name: 'Trash is empty' }).waitFor();
    // Read holds the story read by opening and the one marked: m unmarks both, one after the other.
    await page.goto('/app?view=read');
    await cards(page).nth(1).waitFor();
    await press('j');
    await press('m');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="news-card"]').length === 1);
    await press('m');
    await page.getByRole('heading', { name: 'No read items' }).waitFor();

    // A opens "Mark feed as read" on its first choice; U presses the toast's Undo.
    await page.goto('/app');
    await cards(page).first().waitFor();
    await press('A');
    await page.getByRole('menuitem', { name: 'All stories' }).and(page.locator(':focus')).waitFor();
    await press('Enter');
    await page.locator('li.toast-root', { hasText: 'Marked as read' }).waitFor();
    await page.getByText('You are all caught up.', { exact: false }).waitFor();
    await press('U');
    await page.locator('li.toast-root', { hasText: 'Undone' }).waitFor();
    await cards(page).first().waitFor();

    // ? lists every key; the switch turns them off (and the help still opens from its button).
    await press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    for (const key of ['j', 'k', 'g', 'G', 'J', 'K', 'o', 'f', 'm', 'x', 'u', 's', 't', 'M', 'A', 'U', 'n', 'N', 'r', '?', 'Enter', 'Esc', '/']) {
      assert.equal(await help.locator('kbd', { hasText: new RegExp(`^${key.replace('?', '\\?')}$`) }).count(), 1, `the help lists ${key}`);
    }
    await help.getByRole('button', { name: /^Single-key shortcuts/ }).click();
    await help.getByRole('button', { name: 'Single-key shortcuts: off', pressed: false }).waitFor();
    await press('Escape');
    await help.waitFor({ state: 'detached' });
    await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    await press('j');
    assert.equal(await focusedCard(), null, 'with the switch off, j does nothing');
    await page.reload();
    await cards(page).first().waitFor();
    await press('j');
    assert.equal(await focusedCard(), null, 'the switch is remembered');
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await help.getByRole('button', { name: 'Single-key shortcuts: off' }).click();
    await press('Escape');
    await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
    await press('j');
    assert.notEqual(await focusedCard(), null, 'switched on again');
    await context.close();
  });

  for (const who of ['free', 'subscriber']) {
    it(`every view, the menu, a dialog and the reader for a ${who} reader`, async () => {
      const email = `a11y-${who}-${Date.now()}@example.test`;
      const { context, page } = await openPage(browser, daemon.url);
      const a11y = audit(page);
      await context.route(/^https:\/\/www\.linkedin\.com\//, (route) =>
        route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>share</title><link rel="icon" href="data:,">' }),
      );
      await registerAndSignIn(page, email);
      if (who === 'subscriber') {
        await daemon.cli(['subscribers', 'grant', email]);
        await daemon.cli(['summaries', 'generate']).catch(() => {});
        await page.reload();
        await page.getByRole('link', { name: 'Radar Premium' }).waitFor();
      }
      await cards(page).first().waitFor();
      await a11y.check('feed');
      if (who === 'subscriber') {
        // The keys only a subscriber's feed has work for: t, M, and r reading the feed again.
        await page.keyboard.press('j');
        await page.keyboard.press('t');
        await page.getByRole('dialog', { name: 'Personalized Key Takeaways' }).waitFor();
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'detached' });
        await page.keyboard.press('M');
        await cards(page).nth(39).waitFor();
        const reread = page.waitForRequest((request) => new URL(request.url()).pathname === '/api/news');
        await page.keyboard.press('r');
        await reread;
      }

      // The list density: one line per story, the actions over the row holding focus.
      await page.getByRole('button', { name: 'List', exact: true }).click();
      await page.waitForFunction(() => !document.querySelector('[data-testid="news-card"] p'));
      await a11y.check('feed as a list');
      if (who === 'subscriber') {
        await page.setViewportSize({ width: 1280, height: 800 });
        const { inView, total, top, scrollY } = await cards(page).evaluateAll((all) => ({
          inView: all.filter((card) => card.getBoundingClientRect().bottom <= window.innerHeight).length,
          total: all.length,
          top: all[0]?.getBoundingClientRect().top,
          scrollY: window.scrollY,
        }));
        if (inView < 15) await page.screenshot({ path: `${SCREENSHOTS}/feed-list-1280-failed.png` });
        assert.ok(inView >= 15, `the list shows ${inView} of ${total} stories at 1280x800 (the first at ${top}px, scrolled ${scrollY}px), not 15 or more`);
        await page.screenshot({ path: `${SCREENSHOTS}/feed-list-1280-light.png` });
        await page.setViewportSize({ width: 1280, height: 900 });
      }
      const row = cards(page).first();
      const actions = row.getByRole('group', { name: 'Item actions' });
      assert.equal(Number(await actions.evaluate((el) => getComputedStyle(el.parentElement).opacity)), 0, 'the actions wait for the row');
      await row.locator('h2 a').focus();
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Favorite', 'Tab goes from the title to the row\'s actions');
      await page.waitForFunction((el) => getComputedStyle(el).opacity === '1', await actions.evaluateHandle((el) => el.parentElement));
      await page.getByRole('button', { name: 'Comfortable', exact: true }).click();
      await page.waitForFunction(() => Boolean(document.querySelector('[data-testid="news-card"] p')));

      // One item in each of Favs, Read, Trash and Shared, so each view draws its cards.
      const firstCard = () => cards(page).first();
      await firstCard().getByRole('button', { name: 'Favorite', pressed: false }).click();
      await firstCard().getByRole('button', { name: 'Favorite', pressed: true }).waitFor();
      await cards(page).nth(1).getByRole('button', { name: 'Mark as read' }).click();
      await cards(page).nth(2).getByRole('button', { name: 'Hide' }).click();
      const sharing = context.waitForEvent('page');
      await cards(page).nth(3).getByRole('button', { name: 'Share on LinkedIn' }).click();
      await (await sharing).close();

      for (const view of ['favorites', 'read', 'trash', 'shared', 'drops']) {
        await visit(page, `/app?view=${view}`, () => main(page).locator('[data-testid="news-card"], h2, h3').first().waitFor());
        await a11y.check(view);
      }
      await visit(page, '/app?view=search&q=model', () => main(page).getByRole('heading').first().waitFor());
      await a11y.check('search');

      // The reader over the feed, then the user menu, then the key takeaways dialog.
      await visit(page, '/app', () => cards(page).first().waitFor());
      await cards(page).first().locator('h2 a').first().click();
      await page.getByRole('dialog').first().waitFor();
      await a11y.check('reader');
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').first().waitFor({ state: 'detached' });

      await page.getByRole('button', { name: 'User menu' }).click();
      await page.getByRole('menu').waitFor();
      await a11y.check('user menu');
      await page.keyboard.press('Escape');

      if (who === 'subscriber') {
        await cards(page).first().getByRole('button', { name: 'Key takeaways' }).click();
        await page.getByRole('dialog').first().waitFor();
        await a11y.check('key takeaways');
        await page.keyboard.press('Escape');
      }

      await visit(page, '/tv-mode', () => page.locator('main, [role="main"]').first().waitFor());
      await a11y.check('tv mode');
      for (const path of ['/profile', '/upcoming-features', '/weekly-summary', '/api-docs', '/subscribe']) {
        await visit(page, path, () => page.getByRole('heading').first().waitFor());
        await a11y.check(path);
      }
      if (who === 'subscriber') {
        await visit(page, '/weekly-summary', () => page.getByRole('heading').first().waitFor());
        await main(page).locator('a[href^="/weekly-summary/"]').first().click();
        await page.waitForURL((url) => url.pathname.startsWith('/weekly-summary/'));
        await page.getByRole('heading').first().waitFor();
        await a11y.check('weekly summary');
        // On a phone the summary wraps: nothing scrolls sideways.
        await page.setViewportSize({ width: 390, height: 844 });
        const sideways = await page.evaluate(() => {
          const { scrollWidth, clientWidth } = document.documentElement;
          if (scrollWidth <= clientWidth) return [];
          // What sticks out: elements, or text too long to wrap inside its element.
          const out = [...document.querySelectorAll('body *')]
            .filter((el) => el.getBoundingClientRect().right > clientWidth + 0.5)
            .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`);
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          const range = document.createRange();
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            range.selectNodeContents(node);
            if (range.getBoundingClientRect().right > clientWidth + 0.5) {
              const longest = node.textContent.split(/\s+/).reduce((a, b) => (b.length > a.length ? b : a), '');
              out.push(`text "${node.textContent.trim().slice(0, 40)}" (longest word: ${longest.slice(0, 60)})`);
            }
          }
          return [`${scrollWidth - clientWidth} px`, ...out.slice(0, 5)];
        });
        assert.deepEqual(sideways, [], 'the weekly summary scrolls sideways at 390 px (by, and the widest elements)');
      }
      await context.close();
      a11y.done();
    });
  }
});
