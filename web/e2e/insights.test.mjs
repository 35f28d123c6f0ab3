// The Insights page: a free reader is invited to subscribe; a subscriber reaches it from
// the user menu and the upcoming-features card, and sees a story they read counted, the
// comparison hidden below 20 readers, and that story not among those they missed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import { assertNoConsoleErrors, cards, launchBrowser, main, openPage, registerAndSignIn, shoot, signOut, waitForPath } from './helpers.mjs';

const FREE = `insights-free-${Date.now()}@example.test`;
const SUBSCRIBER = `insights-${Date.now()}@example.test`;

describe('insights', () => {
  let daemon;
  let browser;
  let page;
  let errors;

  before(async () => {
    daemon = await startDaemon({ args: ['--complimentary', SUBSCRIBER, '--reading-totals-every', '1s'] });
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, daemon.url));
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('invites a free reader to subscribe and keeps Insights out of their menu', async () => {
    await registerAndSignIn(page, FREE);
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Profile' }).waitFor();
    assert.equal(await page.getByRole('menuitem', { name: 'Insights' }).count(), 0);
    await page.keyboard.press('Escape');
    await page.goto('/insights');
    await main(page).getByText('Insights are for subscribers. Subscribe now to unlock them.').waitFor();
    await main(page).getByRole('link', { name: 'Subscribe Now' }).waitFor();
    await signOut(page);
  });

  it('shows a subscriber their week', async () => {
    await registerAndSignIn(page, SUBSCRIBER);
    const first = cards(page).first();
    await first.waitFor();
    const title = (await first.locator('h2, h3').first().innerText()).trim();
    await first.getByRole('button', { name: 'Mark as read' }).click();
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Insights' }).click();
    await waitForPath(page, '/insights');
    await main(page).getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    await main(page).getByText('1 story this week.').waitFor();
    await main(page).getByTestId('comparison-hidden').getByText(/at least 20 readers/).waitFor();
    // Missed: the week's stories once counted (every second), never the one read.
    const missed = main(page).getByRole('list', { name: 'Stories you missed' });
    for (let i = 0; i < 30 && (await missed.count()) === 0; i++) {
      await page.waitForTimeout(500);
      await page.reload();
      await main(page).getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    }
    await missed.waitFor();
    const titles = (await missed.locator('li > a, li > span.font-medium').allInnerTexts()).map((t) => t.trim());
    assert.ok(titles.length > 0);
    assert.ok(!titles.includes(title), `${title} is among the missed: ${titles}`);
    await shoot(page, 'insights');
  });

  it('is linked from the upcoming-features card', async () => {
    await page.goto('/upcoming-features');
    await main(page).getByRole('link', { name: 'Open your Insights' }).click();
    await waitForPath(page, '/insights');
    assertNoConsoleErrors(errors, [/403/]);
  });
});
