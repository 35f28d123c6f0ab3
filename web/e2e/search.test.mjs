// Search in the web app (issue 16) against the real daemon: `/` focuses the header's box,
// Enter shows the results as feed cards with the matched words in <mark> (counted right after
// accents and emoji), the results survive reload and back, open in the reader, a nonsense
// word gets the empty state, a malformed query the server's message, and on a phone the box
// opens from an icon without the header leaving its one row.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import { assertNoConsoleErrors, cards, launchBrowser, openPage, registerAndSignIn, shoot } from './helpers.mjs';

const EMAIL = `search-${Date.now()}@example.test`;
// The server answers a malformed query with 400; the browser logs that failed request.
const EXPECTED = [/view=search&q=%22zeppelin: Failed to load resource: .* 400/];

const marks = (locator) => locator.locator('mark').allInnerTexts();
const box = (page) => page.getByRole('searchbox', { name: 'Search stories' });

async function searchFor(page, q) {
  await page.locator('body').click({ position: { x: 5, y: 300 } });
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'header-search', '/ focuses the search box');
  await page.keyboard.type(q);
  await page.keyboard.press('Enter');
  await page.waitForURL((url) => url.searchParams.get('view') === 'search' && url.searchParams.get('q') === q);
}

describe('search', () => {
  let daemon;
  let browser;
  let page;
  let errors;

  before(async () => {
    daemon = await startDaemon({ args: ['--no-demo'] });
    const add = (title, summary, content) => daemon.cli(['items', 'add', '--title', title, '--summary', summary, '--content', content]);
    await add('Über-café 🤖 zeppelin fleets return', 'Airships carry cargo again.', 'Crews say the zeppelin is quiet and cheap to run.');
    await add('Zeppelin tours over the Alps', 'Sightseeing by airship.', 'A day aboard.');
    await add('Chips for small models', 'A new accelerator.', 'Nothing about airships.');
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, daemon.url));
    await registerAndSignIn(page, EMAIL);
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('finds stories from the header box and marks the matched words', async () => {
    await page.goto('/app');
    await page.getByRole('heading', { name: 'Feed', level: 1 }).waitFor();
    await searchFor(page, 'zeppelin');
    await page.getByRole('heading', { name: 'Results for “zeppelin”' }).waitFor();
    await page.waitForFunction(() => /^\(\d+\) zeppelin · Search · Radar$/.test(document.title));
    const results = cards(page);
    await results.first().waitFor();
    assert.equal(await results.count(), 2);
    const titles = (await results.locator('h2').allInnerTexts()).map((t) => t.trim()).sort();
    assert.deepEqual(titles, ['Zeppelin tours over the Alps', 'Über-café 🤖 zeppelin fleets return']);
    // The word after "Über-café 🤖" is marked exactly: the ranges are code points.
    const cafe = results.filter({ hasText: 'Über-café' });
    assert.deepEqual(await marks(cafe.locator('h2')), ['zeppelin']);
    assert.deepEqual(await marks(cafe.getByTestId('search-snippet')), ['zeppelin']);
    assert.deepEqual(await marks(results.filter({ hasText: 'Alps' }).locator('h2')), ['Zeppelin']);
    assert.equal(await box(page).inputValue(), 'zeppelin');
    await shoot(page, 'search-results');
  });

  it('keeps the results on reload and opens one in the reader', async () => {
    await page.reload();
    await cards(page).first().waitFor();
    assert.equal(await cards(page).count(), 2);
    await cards(page).filter({ hasText: 'Alps' }).getByRole('link', { name: 'Zeppelin tours over the Alps' }).click();
    await page.getByRole('dialog', { name: 'Zeppelin tours over the Alps' }).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('q'), 'zeppelin');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    assert.equal(await cards(page).count(), 2);
  });

  it('shows a designed empty state for a word nothing holds, and back returns to the results', async () => {
    await searchFor(page, 'qwxzzkvb');
    const empty = page.getByTestId('search-empty');
    await empty.getByRole('heading', { name: 'No results for “qwxzzkvb”' }).waitFor();
    await empty.getByRole('link', { name: 'Back to Feed' }).waitFor();
    assert.equal(await cards(page).count(), 0);
    await shoot(page, 'search-empty');
    await page.goBack();
    await page.getByRole('heading', { name: 'Results for “zeppelin”' }).waitFor();
    await cards(page).first().waitFor();
    assert.equal(await box(page).inputValue(), 'zeppelin');
  });

  it('shows the server’s message for a malformed query; Esc clears the box', async () => {
    await searchFor(page, '"zeppelin');
    const message = await page.getByTestId('search-error').innerText();
    assert.match(message, /quote is not closed/);
    await box(page).click();
    await page.keyboard.press('Escape');
    assert.equal(await box(page).inputValue(), '');
    assert.notEqual(await page.evaluate(() => document.activeElement?.id), 'header-search');
  });

  it('opens the box from an icon on a phone, keeping the header one row', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto('/app?view=drops');
    await page.getByRole('button', { name: 'Search', exact: true }).waitFor();
    const header = page.locator('header').first();
    assert.ok((await header.boundingBox()).height <= 64, 'one row');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375), 'nothing sticks out');
    assert.equal(await box(page).isVisible(), false);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await box(page).waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'header-search');
    await page.keyboard.type('airship');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Results for “airship”' }).waitFor();
    await cards(page).first().waitFor();
    assert.ok((await marks(cards(page))).length >= 1);
    assert.ok((await header.boundingBox()).height <= 64, 'still one row');
    assert.equal(await box(page).isVisible(), false, 'the box folds back into its icon');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(errors, EXPECTED);
  });
});
