// A free reader end to end: the capped feed, favourite / read / hide and their exclusion,
// Trash and Restore, Drops up to the paywall, TV mode, the waitlist, the profile editor,
// the API key, and at last the test checkout that makes the reader a subscriber. Screens are saved in light and dark at 1280 px and 375 px.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import { assertNoConsoleErrors, cards, launchBrowser, main, openPage, registerAndSignIn, shoot, waitForPath, waitForToast } from './helpers.mjs';

const EMAIL = `free-${Date.now()}@example.test`;

describe('free reader', () => {
  let daemon;
  let browser;
  let context;
  let page;
  let errors;

  const tab = (name) => page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: name === 'Feed' ? /^Feed( \d+ unread)?$/ : name, exact: true });
  const cardTitled = (title) => cards(page).filter({ hasText: title });

  before(async () => {
    daemon = await startDaemon();
    browser = await launchBrowser();
    ({ context, page, errors } = await openPage(browser, daemon.url));
    // The share link opens the professional network in a new tab; this machine has no way
    // out, so that page is answered locally.
    await context.route(/^https:\/\/www\.linkedin\.com\//, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>share</title><link rel="icon" href="data:,">' }),
    );
    await registerAndSignIn(page, EMAIL);
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('shows 5 stories and Subscribe Now in the feed', async () => {
    await cards(page).first().waitFor();
    assert.equal(await cards(page).count(), 5);
    await main(page).getByRole('link', { name: 'Subscribe Now' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Radar', exact: true }).count(), 1);
    assert.equal(await main(page).getByRole('button', { name: 'Key takeaways' }).count(), 0);
    await shoot(page, 'feed');
  });

  it('keeps favourite, read and hidden exclusive', async () => {
    const title = (await cards(page).first().locator('h2').innerText()).trim();
    const card = cardTitled(title);

    await card.getByRole('button', { name: 'Favorite', pressed: false }).click();
    await card.getByRole('button', { name: 'Favorite', pressed: true }).waitFor();
    await tab('Favs').click();
    await cardTitled(title).waitFor();
    await shoot(page, 'favs');

    await tab('Feed').click();
    await cardTitled(title).getByRole('button', { name: 'Mark as read' }).click();
    await cardTitled(title).waitFor({ state: 'detached' });
    await tab('Favs').click();
    await page.getByRole('heading', { name: 'No Favs Yet' }).waitFor();
    await tab('Read').click();
    await cardTitled(title).waitFor();
    await shoot(page, 'read');

    // Unmarking puts it back in the feed; hiding it there takes it to Trash.
    await cardTitled(title).getByRole('button', { name: 'Mark as unread' }).click();
    await page.getByRole('heading', { name: 'No read items' }).waitFor();
    await tab('Feed').click();
    await cardTitled(title).getByRole('button', { name: 'Hide' }).click();
    await cardTitled(title).waitFor({ state: 'detached' });
    await tab('Trash').click();
    await cardTitled(title).waitFor();
    await tab('Read').click();
    await page.getByRole('heading', { name: 'No read items' }).waitFor();

    // A favourite hidden from Favs leaves Favs.
    await tab('Feed').click();
    const second = (await cards(page).first().locator('h2').innerText()).trim();
    await cardTitled(second).getByRole('button', { name: 'Favorite', pressed: false }).click();
    await tab('Favs').click();
    await cardTitled(second).getByRole('button', { name: 'Hide' }).click();
    await page.getByRole('heading', { name: 'No Favs Yet' }).waitFor();

    // The server kept all of it: a reload shows the same Trash.
    await page.goto('/app?view=trash');
    await cardTitled(title).waitFor();
    await cardTitled(second).waitFor();
    await shoot(page, 'trash');
  });

  it('restores from Trash into the feed', async () => {
    const title = (await cards(page).first().locator('h2').innerText()).trim();
    await cardTitled(title).getByRole('button', { name: 'Restore' }).click();
    await waitForToast(page, 'Item restored');
    await cardTitled(title).waitFor({ state: 'detached' });
    await tab('Feed').click();
    await cardTitled(title).waitFor();
  });

  it('shares a story and lists it under Shared', async () => {
    const title = (await cards(page).first().locator('h2').innerText()).trim();
    const [popup] = await Promise.all([
      context.waitForEvent('page'),
      cardTitled(title).getByRole('button', { name: 'Share on LinkedIn' }).click(),
    ]);
    const shareUrl = new URL(popup.url());
    assert.equal(shareUrl.searchParams.get('title'), title);
    assert.ok((shareUrl.searchParams.get('summary') ?? '').length <= 100);
    await popup.close();
    await tab('Shared').click();
    // The card in the Shared view's own list: until the view has loaded, the feed's card
    // with this title is still on the page.
    const shared = page.getByRole('region', { name: 'Shared' }).locator(cardTitled(title));
    await shared.waitFor();
    assert.match(await shared.innerText(), /Shared on LinkedIn/);
    await shoot(page, 'shared');
    await tab('Feed').click();
  });

  it('walks Drops to the paywall after 5 stories', async () => {
    await tab('Drops').click();
    const story = page.getByTestId('drop-story');
    await story.waitFor();
    await shoot(page, 'drops');
    for (let i = 0; i < 5; i++) {
      assert.equal(await story.getAttribute('data-index'), String(i));
      const size = await page.getByTestId('drop-text').evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
      assert.ok(size >= 24 && size <= 48, `font size ${size}`);
      await page.getByRole('button', { name: 'Next story' }).click();
      await page.waitForTimeout(350);
    }
    await page.getByRole('heading', { name: 'Premium Content' }).waitFor();
    await shoot(page, 'drops-paywall');
  });

  it('runs TV mode: advances, pauses, cycles the interval', async () => {
    await page.getByRole('link', { name: 'TV mode' }).click();
    await waitForPath(page, '/tv-mode');
    const position = page.getByTestId('tv-position');
    await position.waitFor();
    assert.equal(await position.innerText(), '1 of 5');
    await shoot(page, 'tv-mode');
    for (const expected of ['15', '20', '5']) {
      await page.getByRole('button', { name: /^Interval/ }).click();
      assert.equal((await page.getByRole('button', { name: /^Interval/ }).innerText()).trim(), `${expected}s`);
    }
    await page.waitForFunction(() => document.querySelector('[data-testid="tv-position"]')?.textContent === '2 of 5', null, {
      timeout: 8000,
    });
    await page.getByRole('button', { name: 'Pause' }).click();
    assert.equal(await page.getByTestId('tv-countdown').innerText(), 'Paused');
    await page.waitForTimeout(6000);
    assert.equal(await position.innerText(), '2 of 5');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('link', { name: 'Exit TV Mode' }).click();
    await waitForPath(page, '/app');
  });

  it('joins the waitlist', async () => {
    await main(page).getByRole('link', { name: 'Subscribe Now' }).first().click();
    await waitForPath(page, '/subscribe');
    await page.getByRole('heading', { name: 'Get Notified' }).waitFor();
    await shoot(page, 'subscribe');
    await page.getByRole('button', { name: 'Join Waitlist' }).click();
    await waitForToast(page, 'Success!');
    await page.getByRole('heading', { name: 'Successfully Joined!' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Successfully Joined!' }).waitFor();
  });

  it('edits the profile, saves and cancels', async () => {
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Profile' }).click();
    await waitForPath(page, '/profile');
    const resume = page.getByLabel('Professional Resume');
    await page.getByRole('button', { name: 'Edit Profile' }).click();
    await resume.fill('Product manager working on ML tooling.');
    await page.getByRole('button', { name: 'Save' }).click();
    await waitForToast(page, 'Profile Updated');
    await page.getByRole('button', { name: 'Edit Profile' }).waitFor();
    await page.getByRole('button', { name: 'Edit Profile' }).click();
    await resume.fill('Something I will not keep');
    await page.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await resume.inputValue(), 'Product manager working on ML tooling.');
    await page.reload();
    await page.getByRole('button', { name: 'Edit Profile' }).waitFor();
    assert.equal(await page.getByLabel('Professional Resume').inputValue(), 'Product manager working on ML tooling.');
    await shoot(page, 'profile');
  });

  it('shows the API key and copies it', async () => {
    await page.goto('/api-docs');
    const key = page.getByTestId('api-key');
    await page.waitForFunction(() => {
      const text = document.querySelector('[data-testid="api-key"]')?.textContent ?? '';
      return text.length > 8 && !text.includes('Loading');
    });
    const shown = (await key.innerText()).trim();
    await page.getByRole('button', { name: 'Copy API key' }).click();
    await waitForToast(page, 'Copied!');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown);
    await page.getByRole('tab', { name: 'Pagination' }).click();
    await page.getByLabel('Pagination request').waitFor();
    await page.getByRole('link', { name: 'Join Premium Waitlist' }).waitFor();
    await shoot(page, 'api-docs');
  });

  it('shows the upcoming features', async () => {
    await page.goto('/upcoming-features');
    await page.getByRole('heading', { name: 'Custom News Alerts' }).waitFor();
    // A card whose feature exists leads to it.
    const built = page.getByRole('link', { name: 'Read it in the weekly summary' });
    assert.equal(await built.getAttribute('href'), '/weekly-summary');
    await shoot(page, 'upcoming-features');
  });

  it('fits a 375 px screen (every shot is also taken at 375 px)', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    for (const [path, name] of [
      ['/app', 'feed'],
      ['/app?view=drops', 'drops'],
      ['/subscribe', 'subscribe'],
      ['/api-docs', 'api-docs'],
      ['/profile', 'profile'],
    ]) {
      await page.goto(path);
      await page.locator('main').first().waitFor();
      await page.waitForLoadState('networkidle');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${path} (${name}) is ${overflow}px wider than the screen`);
    }
  });

  it('subscribes through the test checkout', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto('/app');
    await page.getByRole('button', { name: /^Test checkout/ }).click();
    await page.waitForURL(/\/checkout\//);
    await page.getByRole('button', { name: /pay/i }).click();
    await waitForPath(page, '/subscribe/success');
    await page.getByRole('heading', { name: 'Assinatura confirmada!' }).waitFor();
    await shoot(page, 'subscribe-success');
    await page.getByRole('link', { name: 'Ir para o app' }).click();
    await waitForPath(page, '/app');
    await page.getByRole('link', { name: 'Radar Premium' }).waitFor();
    await cards(page).nth(19).waitFor();
  });

  it('shows the Portuguese failure for a missing session id', async () => {
    await page.goto('/subscribe/success');
    await page.getByText('ID da sessão não encontrado na URL.').waitFor();
  });

  it('logged no console errors', () => {
    // The daemon's own test checkout page (not this app) has no favicon, and Chromium asks for one.
    assertNoConsoleErrors(errors, [/\/checkout\/cs_test_\w+: Failed to load resource: .*404/]);
  });
});
