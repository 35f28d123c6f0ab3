// Custom news alerts in the browser: a search saved as an alert, the free reader's one alert
// refused with the server's reason, a new matching story announced by the header's badge and
// listed on the alerts page, the mail's unsubscribe link working signed out, and the
// upcoming-features card leading to the page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDaemon } from './daemon.mjs';
import { assertNoConsoleErrors, launchBrowser, main, openPage, registerAndSignIn, waitForPath } from './helpers.mjs';

const EMAIL = `alerts-${Date.now()}@example.test`;
const QUERY = '"open weights"';

/** The newest kept alert mail, waited for (the daemon looks for due mails every second). */
async function alertMail(daemon) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const kept = JSON.parse(await daemon.cli(['outbox', 'list', '--json']));
    const mails = Array.isArray(kept) ? kept : Object.values(kept).find(Array.isArray);
    const mail = mails?.find((m) => m.kind === 'alert');
    if (mail) return mail;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('no alert mail within 20 s');
}

describe('alerts', () => {
  let daemon;
  let browser;
  let page;
  let errors;

  before(async () => {
    daemon = await startDaemon({ args: ['--mail-every', '1'] });
    browser = await launchBrowser();
    ({ page, errors } = await openPage(browser, daemon.url));
    await registerAndSignIn(page, EMAIL);
  });

  after(async () => {
    await browser?.close();
    await daemon?.stop();
  });

  it('saves a search as an alert from its results', async () => {
    await page.goto(`/app?view=search&q=${encodeURIComponent(QUERY)}`);
    await main(page).getByRole('link', { name: 'Watch this search' }).click();
    await waitForPath(page, '/alerts');
    assert.equal(await page.getByLabel('Watch for').inputValue(), QUERY);
    await page.getByRole('button', { name: 'Save alert' }).click();
    await page.getByTestId('alert-row').filter({ hasText: QUERY }).waitFor();
  });

  it("refuses a free reader's second alert with the server's reason", async () => {
    await page.getByLabel('Watch for').fill('gemini');
    await page.getByRole('button', { name: 'Save alert' }).click();
    const error = page.getByTestId('alert-error');
    await error.waitFor();
    assert.match(await error.innerText(), /Free readers can keep 1 alert/);
    assert.equal(await page.getByTestId('alert-row').count(), 1);
  });

  it('announces a new matching story with a badge, and lists it', async () => {
    // Off the alerts page first: a refetch there (the service worker taking the page over
    // reads what it shows again) would list the new match, and listing marks it seen.
    await page.goto('about:blank');
    await daemon.cli(['items', 'add', '--title', 'Open weights model ships today', '--summary', 'A report.', '--url', 'https://lab.example/open']);
    await daemon.cli(['items', 'add', '--title', 'A closed model ships', '--summary', 'Another report.', '--url', 'https://lab.example/closed']);
    await page.goto('/app');
    const bell = page.getByRole('link', { name: 'Alerts, 1 new' });
    await bell.waitFor();
    await bell.click();
    await waitForPath(page, '/alerts');
    const hits = page.getByTestId('alert-hit');
    await hits.first().waitFor();
    assert.equal(await hits.count(), 1);
    assert.match(await hits.first().innerText(), /Open weights model ships today/);
    // Seen once listed: the badge goes.
    await page.goto('/app');
    await page.getByRole('link', { name: 'Alerts', exact: true }).waitFor();
  });

  it("stops the alert's e-mails from the mail's link, signed out", async () => {
    const mail = await alertMail(daemon);
    const shown = await daemon.cli(['outbox', 'show', mail.id]);
    const link = /https?:\/\/\S+\/unsubscribe\?token=\S+/.exec(shown)?.[0];
    assert.ok(link, `an unsubscribe link in ${shown}`);
    const signedOut = await openPage(browser, daemon.url);
    await signedOut.page.goto(new URL(link).pathname + new URL(link).search);
    await signedOut.page.getByRole('button', { name: 'Stop these e-mails' }).click();
    await signedOut.page.getByRole('status').filter({ hasText: `You will get no more e-mails of the alert “${QUERY}”` }).waitFor();
    await signedOut.context.close();
    await page.goto('/alerts');
    const row = page.getByTestId('alert-row').filter({ hasText: QUERY });
    await row.waitFor();
    assert.equal(await row.getByRole('checkbox', { name: 'E-mail' }).isChecked(), false);
  });

  it('is reached from the upcoming-features card', async () => {
    await page.goto('/upcoming-features');
    await page.getByRole('link', { name: 'Set up your alerts' }).click();
    await waitForPath(page, '/alerts');
    // The refused second alert is the one failed request the browser logs.
    assertNoConsoleErrors(errors, [/\/alerts\?q=.*status of 403/]);
  });
});
