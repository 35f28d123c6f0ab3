// One card per story end to end: five outlets reporting the same event, published a few hours
// ago, are grouped by the server into one card that says "5 sources" in the Feed, Drops and TV
// mode; the reader lists the four other outlets under "Other sources", each opening in the
// reader; the profile's "One card per story" switched off shows every item on its own card.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import { assertNoConsoleErrors, cards, holdAppCode, launchBrowser, main, openPage, registerAndSignIn, shoot } from './helpers.mjs';

const EMAIL = `stories-${Date.now()}@example.test`;
const HOUR = 3600 * 1000;
const ago = (hours) => new Date(Date.now() - hours * HOUR).toISOString();

/** The same event told by five outlets, in words that mostly agree. */
const OUTLETS = [
  {
    id: 'anthropic-reuters',
    url: 'https://www.reuters.com/technology/amazon-anthropic-investment',
    title: 'Amazon to invest another $4 billion in Anthropic',
    summary:
      "Amazon will invest another $4 billion in Anthropic, doubling its total commitment to $8 billion, and Anthropic will train its models on Amazon's Trainium chips. Amazon Web Services becomes Anthropic's primary cloud and training partner.",
  },
  {
    id: 'anthropic-techcrunch',
    url: 'https://techcrunch.com/amazon-doubles-anthropic-investment',
    title: 'Amazon doubles its Anthropic investment to $8 billion',
    summary:
      "Amazon is investing another $4 billion in Anthropic, doubling its total commitment to $8 billion, and Anthropic will train its models on Amazon's Trainium chips. Amazon Web Services is now Anthropic's primary cloud and training partner.",
  },
  {
    id: 'anthropic-verge',
    url: 'https://www.theverge.com/amazon-anthropic-4-billion',
    title: 'Amazon puts another $4 billion into Anthropic',
    summary:
      "Amazon will put another $4 billion into Anthropic, doubling its total commitment to $8 billion, and Anthropic will train its models on Amazon's Trainium chips. Amazon Web Services will be Anthropic's primary cloud and training partner.",
  },
  {
    id: 'anthropic-bloomberg',
    url: 'https://www.bloomberg.com/news/amazon-anthropic-stake',
    title: 'Amazon to invest $4 billion more in Anthropic',
    summary:
      "Amazon will invest $4 billion more in Anthropic, doubling its total commitment to $8 billion, and Anthropic will train its models on Amazon's Trainium chips. Amazon Web Services becomes Anthropic's primary cloud and training partner.",
  },
  {
    id: 'anthropic-ft',
    url: 'https://www.ft.com/content/amazon-anthropic',
    title: 'Amazon invests a further $4 billion in Anthropic',
    summary:
      "Amazon will invest a further $4 billion in Anthropic, doubling its total commitment to $8 billion, and Anthropic will train its models on Amazon's Trainium chips. Amazon Web Services becomes Anthropic's main cloud and training partner.",
  },
].map((item, i) => ({ ...item, published_date: ago(2 + i) }));

/** An unrelated story, older than the five: a free reader's five cards without grouping are the outlets. */
const ALONE = {
  id: 'lisbon-quantum-lab',
  url: 'https://www.quantumwire.example/lisbon-lab',
  title: 'Quantum chip startup opens a lab in Lisbon',
  summary: 'A quantum computing startup opened a research lab in Lisbon to hire physicists and build superconducting qubits for European customers.',
  published_date: ago(10),
};

const TITLES = OUTLETS.map((o) => o.title);
const titles = (page) => page.locator('[data-testid="news-card"] h2').allInnerTexts();
const cardTitled = (page, title) => cards(page).filter({ has: page.getByRole('heading', { name: title, exact: true }) });

describe('one card per story', () => {
  let daemon;
  let browser;
  let page;
  let errors;
  /** The title of the story's card (the server picks which outlet leads). */
  let lead;

  /** A next visit with the app's code held back: its first paint says "5 sources" on the story's card alone. */
  async function nextVisitPaintsTheStory() {
    const next = await browser.newContext({ baseURL: daemon.url, storageState: await page.context().storageState() });
    try {
      const tab = await next.newPage();
      const release = await holdAppCode(tab);
      await tab.goto('/app', { waitUntil: 'commit' });
      const painted = tab.locator('[data-first-paint=""] article');
      await painted.nth(1).waitFor();
      const paintedTitled = (title) => painted.filter({ has: tab.getByRole('heading', { name: title, exact: true, includeHidden: true }) });
      assert.match(await paintedTitled(lead).innerText(), /\b5 sources\b/);
      assert.doesNotMatch(await paintedTitled(ALONE.title).innerText(), /sources?\b/);
      release();
    } finally {
      await next.close();
    }
  }

  before(async () => {
    daemon = await startDaemon({ args: ['--no-demo'] });
    const file = join(daemon.dataDir, '..', `stories-${Date.now()}.jsonl`);
    writeFileSync(file, `${[...OUTLETS, ALONE].map((item) => JSON.stringify(item)).join('\n')}\n`);
    await daemon.cli(['items', 'import', file]);
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, daemon.url));
    await registerAndSignIn(page, EMAIL);
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('shows the five outlets as one card saying "5 sources", and the other story without', async () => {
    await cards(page).first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="news-card"]').length === 2);
    const shown = await titles(page);
    assert.equal(shown.length, 2, `one card per story: ${shown}`);
    lead = shown.find((t) => TITLES.includes(t));
    assert.ok(lead, `the story's card is one of the outlets: ${shown}`);
    assert.ok(shown.includes(ALONE.title));
    const story = cardTitled(page, lead);
    assert.match(await story.innerText(), /\b5 sources\b/);
    assert.equal(await story.getByText('5 sources', { exact: true }).isVisible(), true);
    assert.doesNotMatch(await cardTitled(page, ALONE.title).innerText(), /sources?\b/);
    await shoot(page, 'stories-feed');

    // The next visit's first paint, drawn before the app's code arrives, says it too.
    await page.waitForFunction(() => localStorage.getItem('radar-first-paint'));
    await nextVisitPaintsTheStory();

    // Drops and TV mode open on the story, newest first, and say it too.
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Drops', exact: true }).click();
    const drop = page.getByTestId('drop-story');
    await drop.waitFor();
    assert.match(await drop.innerText(), /5 sources/);
    await page.goto('/tv-mode');
    const slide = page.getByTestId('tv-slide');
    await slide.waitFor();
    assert.equal(await slide.getByRole('heading', { level: 1 }).innerText(), lead);
    assert.match(await slide.innerText(), /5 sources/);
    await page.getByRole('button', { name: 'Pause' }).click();
  });

  it('shows every item on its own card once "One card per story" is off, and one card again when on', async () => {
    await page.goto('/app');
    await cards(page).first().waitFor();
    // To the profile and back inside the app: the feed on screen must be read again.
    await page.getByRole('button', { name: 'User menu' }).click();
    await page.getByRole('menuitem', { name: 'Profile' }).click();
    const setting = page.getByRole('checkbox', { name: /One card per story/ });
    await setting.waitFor();
    assert.equal(await setting.isChecked(), true, 'on by default');
    assert.equal(await page.getByText('Group the same news from several outlets into one card.', { exact: true }).isVisible(), true);
    const saved = page.waitForResponse((r) => r.url().endsWith('/api/user/profile') && r.request().method() === 'PATCH');
    await setting.click();
    assert.equal((await (await saved).json()).stories, false);
    await page.waitForFunction(() => !document.querySelector('input[type="checkbox"]:disabled'));
    assert.equal(await setting.isChecked(), false);

    await page.goBack();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="news-card"]').length === 5);
    assert.deepEqual((await titles(page)).sort(), [...TITLES].sort(), 'a free reader\'s five cards are the five outlets');
    assert.doesNotMatch(await main(page).innerText(), /\d+ sources?\b/);
    assert.equal(await page.getByTestId('story-sources').count(), 0);
    // The snapshot taken now is of a page that never showed a story: kept afresh from a load.
    await page.evaluate(() => localStorage.removeItem('radar-first-paint'));
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="news-card"]').length === 5 && localStorage.getItem('radar-first-paint'));

    await page.goForward();
    await setting.waitFor();
    // Until the save is under way the checkbox may still read its old state (React puts
    // a controlled input back before the mutation's pending state renders): wait for it.
    const savedAgain = page.waitForResponse((r) => r.url().endsWith('/api/user/profile') && r.request().method() === 'PATCH');
    await setting.click();
    assert.equal((await (await savedAgain).json()).stories, true);
    await page.waitForFunction(() => !document.querySelector('input[type="checkbox"]:disabled'));
    assert.equal(await setting.isChecked(), true);
    // Grouping is back on: the next visit's first paint says "5 sources", though the page it
    // was kept from showed no story.
    await nextVisitPaintsTheStory();
    await page.goBack();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="news-card"]').length === 2);
    assert.match(await cardTitled(page, lead).innerText(), /5 sources/);
  });

  it('lists the other outlets in the reader, each opening in the reader', async () => {
    await cardTitled(page, lead).getByRole('link', { name: lead, exact: true }).click();
    const reader = page.getByTestId('reader');
    await reader.waitFor();
    const others = reader.getByRole('region', { name: 'Other sources' });
    await others.waitFor();
    const outlets = others.getByRole('listitem');
    assert.equal(await outlets.count(), 4);
    const expected = OUTLETS.filter((o) => o.title !== lead);
    for (const outlet of expected) {
      const row = outlets.filter({ has: page.getByRole('link', { name: outlet.title, exact: true }) });
      assert.equal(await row.count(), 1, `${outlet.title} is listed once`);
      const external = row.getByRole('link', { name: /^Read at .+ \(opens in a new tab\)$/ });
      assert.equal(await external.getAttribute('href'), outlet.url);
      assert.equal(await external.getAttribute('rel'), 'noopener noreferrer');
      assert.equal(await external.getAttribute('target'), '_blank');
      // The outlet's source name, as the server names it from its host (not the stand-in "Source").
      const lines = (await row.innerText()).split('\n').map((l) => l.trim());
      const source = /^Read at (.+) \(opens in a new tab\)$/.exec(await external.innerText())?.[1];
      assert.ok(source && source !== 'Source' && lines.includes(source), `named by its host: ${lines}`);
    }
    await shoot(page, 'stories-reader');

    // An outlet opens in the reader in place of the story; its list has the story's card.
    const next = expected[0];
    await others.getByRole('link', { name: next.title, exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get('item') === next.id);
    await page.getByRole('dialog').getByRole('heading', { name: next.title, exact: true }).waitFor();
    const theirs = page.getByTestId('reader').getByRole('region', { name: 'Other sources' });
    await theirs.getByRole('link', { name: lead, exact: true }).waitFor();
    assert.equal(await theirs.getByRole('listitem').count(), 4);

    // One Esc still goes back to the feed.
    await page.keyboard.press('Escape');
    await page.getByTestId('reader').waitFor({ state: 'detached' });
    assert.equal(new URL(page.url()).searchParams.get('item'), null);
    await cardTitled(page, lead).waitFor();
  });

  it('logged no console errors', () => {
    assertNoConsoleErrors(errors);
  });
});
