// Time to the first feed card on a cold signed-in load of /app (issue 14's target: 400 ms
// on the development machine). Each run opens a fresh browser context (empty HTTP cache) that
// carries only the stored session, loads /app and reads, in the page, the time from navigation
// start until the first card is in the DOM; it also counts the requests and bytes of the load.
// A benchmark, not a test: it prints figures and asserts nothing.
//
//   npm run build && cargo build --release -p radar-cli
//   RADAR_BIN=target/release/radar node web/bench/first-card.mjs [runs]
import { startDaemon } from '../e2e/daemon.mjs';
import { launchBrowser, openPage, registerAndSignIn } from '../e2e/helpers.mjs';

const RUNS = Number(process.argv[2] ?? 15);

// Runs in the page before its scripts: notes when the first card appears.
const watchFirstCard = () => {
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid="news-card"]')) {
      window.__firstCard = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
};

const daemon = await startDaemon();
const browser = await launchBrowser();
try {
  const { context, page } = await openPage(browser, daemon.url);
  await registerAndSignIn(page, `bench-${Date.now()}@example.test`);
  await page.locator('[data-testid="news-card"]').first().waitFor();
  const storageState = await context.storageState();
  await context.close();

  const times = [];
  let load = null;
  for (let i = 0; i < RUNS; i++) {
    const cold = await browser.newContext({ baseURL: daemon.url, storageState, viewport: { width: 1280, height: 900 } });
    await cold.addInitScript(watchFirstCard);
    const tab = await cold.newPage();
    await tab.goto('/app');
    await tab.waitForFunction(() => window.__firstCard !== undefined, null, { timeout: 30_000 });
    times.push(await tab.evaluate(() => window.__firstCard));
    load = await tab.evaluate(() => {
      const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
      return { requests: entries.length, kb: entries.reduce((sum, e) => sum + (e.transferSize || 0), 0) / 1024 };
    });
    await cold.close();
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  console.log(`first card on a cold signed-in /app, ${RUNS} runs (${process.env.RADAR_BIN ?? 'target/debug/radar'}):`);
  console.log(`  median ${at(0.5).toFixed(0)} ms, p90 ${at(0.9).toFixed(0)} ms, best ${times[0].toFixed(0)} ms`);
  console.log(`  ${load.requests} requests, ${load.kb.toFixed(0)} KB transferred`);
} finally {
  await browser.close();
  await daemon.stop();
}
