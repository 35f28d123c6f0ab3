// Trends in the web app (issue 28) against the real daemon, on items dated relative to now:
// the page is reachable from the user menu and from the Upcoming Features card, shows a term
// that rose from 0 to 12 stories first among the rising ones (above a term steady at 40 a
// week), each with its weekly chart and its stories as links, a falling term, never "The";
// and when the server fails, an error state that says what to do, with Try again.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import { assertNoConsoleErrors, launchBrowser, openPage, registerAndSignIn, shoot, signIn, waitForPath } from './helpers.mjs';

const EMAIL = `trends-${Date.now()}@example.test`;
const DAY = 24 * 3600 * 1000;

/** `n` stories naming `name`, published `daysAgo` days (and an hour) ago, as JSON Lines. */
function stories(name, n, daysAgo) {
  const slug = name.toLowerCase().replace(/ /g, '-');
  const at = new Date(Date.now() - daysAgo * DAY - 3600 * 1000).toISOString();
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `${slug}-${daysAgo}-${i}`,
      title: `Story ${i} about ${name}`,
      summary: `Analysts said The outcome of This deal with ${name} matters.`,
      url: `https://${slug}.example/${daysAgo}/${i}`,
      published_date: at,
    }),
  ).join('\n');
}

const trendCards = (page, list) => page.getByRole('region', { name: list }).getByTestId('trend');

describe('trends', () => {
  let daemon;
  let browser;
  let page;
  let errors;

  before(async () => {
    daemon = await startDaemon({ args: ['--no-demo', '--complimentary', EMAIL] });
    const lines = [];
    for (let week = 0; week < 5; week++) lines.push(stories('Acme Robotics', 40, week * 7 + 1));
    lines.push(stories('Zephyr Labs', 12, 2));
    for (let week = 1; week < 5; week++) lines.push(stories('Borealis Systems', 10, week * 7 + 2));
    const file = join(daemon.dataDir, '..', `trends-${Date.now()}.jsonl`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    await daemon.cli(['items', 'import', file]);
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, daemon.url));
    await registerAndSignIn(page, EMAIL);
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('opens from the user menu and ranks the rise from nothing first', async () => {
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Trends' }).click();
    await waitForPath(page, '/trends');
    await page.getByRole('heading', { name: 'Trends', level: 1 }).waitFor();
    await page.waitForFunction(() => /Trends · Radar$/.test(document.title));
    const rising = trendCards(page, 'Rising');
    await rising.first().waitFor();
    assert.equal((await rising.first().locator('h3').innerText()).trim(), 'Zephyr Labs');
    const terms = (await rising.locator('h3').allInnerTexts()).map((t) => t.trim());
    assert.ok(!terms.includes('Acme Robotics'), `a steady term is not rising: ${terms}`);
    const chart = rising.first().getByTestId('trend-chart');
    assert.equal(await chart.getAttribute('aria-label'), 'Zephyr Labs: 0, 0, 0, 0, 0, 0, 0, 12 stories a week, oldest first');
    assert.equal(await chart.locator('rect title').count(), 8, 'a bar a week');
    const links = rising.first().getByRole('link');
    assert.equal(await links.count(), 3);
    assert.match(await links.first().getAttribute('href'), /^https:\/\/zephyr-labs\.example\/2\//);
    const falling = trendCards(page, 'Falling');
    assert.equal((await falling.first().locator('h3').innerText()).trim(), 'Borealis Systems');
    const all = [...terms, ...(await falling.locator('h3').allInnerTexts()).map((t) => t.trim())];
    for (const t of all) assert.ok(!/\b(The|This)\b/.test(t), `${t} holds a stop word`);
    await shoot(page, 'trends');
    assertNoConsoleErrors(errors);
  });

  it('is linked from the Trends card of Upcoming Features', async () => {
    await page.goto('/upcoming-features');
    await page.getByRole('link', { name: 'See the trends' }).click();
    await waitForPath(page, '/trends');
    await trendCards(page, 'Rising').first().waitFor();
  });

  it('says what to do when the trends cannot be loaded, and Try again loads them', async () => {
    // Without the service worker, so the failed answer reaches the app as the server's.
    const context = await browser.newContext({ baseURL: daemon.url, serviceWorkers: 'block' });
    const failing = await context.newPage();
    failing.setDefaultTimeout(10_000);
    await signIn(failing, EMAIL);
    let fail = true;
    await context.route('**/api/trends', (route) =>
      fail ? route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"unavailable","message":"down"}' }) : route.fallback(),
    );
    await failing.goto('/trends');
    await failing.getByRole('heading', { name: 'Trends could not be loaded' }).waitFor();
    assert.match(await failing.locator('main').innerText(), /try again/i);
    fail = false;
    await failing.getByRole('button', { name: 'Try again' }).click();
    await trendCards(failing, 'Rising').first().waitFor();
    await context.close();
  });
});
