// Time to the first feed card on a cold signed-in load of /app, on a desktop profile and on a
// phone profile (issue 30's targets: 350 ms and 1,500 ms, medians of 10 runs). Each run opens
// a fresh browser context (empty HTTP cache) that carries only the stored session, loads /app
// and reads, in the page, the time from navigation start until the first card is in the DOM;
// it also counts the requests and the bytes of the load (as sent, so compressed).
//
// The phone profile is Chrome DevTools' "Slow 4G" set through the DevTools protocol: the CPU
// 4 times slower, 150 ms of latency added to every request, 1.6 Mbit/s down and 750 kbit/s
// up, on a 390 x 844 touch screen. A benchmark, not a test: it prints figures and asserts
// nothing.
//
//   npm run build && cargo build --release -p radar-cli
//   RADAR_BIN=target/release/radar [TIMELINE=1] node web/bench/first-card.mjs [runs] [desktop|phone]
import { startDaemon } from '../e2e/daemon.mjs';
import { launchBrowser, openPage, registerAndSignIn } from '../e2e/helpers.mjs';

const RUNS = Number(process.argv[2] ?? 10);
const ONLY = process.argv[3];
// TIMELINE=1 prints each run's requests in the order they finished: what the first card waited for.
const TIMELINE = Boolean(process.env.TIMELINE);

const PROFILES = [
  { name: 'desktop', context: { viewport: { width: 1280, height: 900 } } },
  {
    name: 'phone',
    context: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true },
    cpu: 4,
    network: { offline: false, latency: 150, downloadThroughput: (1.6e6 / 8), uploadThroughput: (750e3 / 8) },
  },
];

// Runs in the page before its scripts: notes when the first card appears.
const watchFirstCard = () => {
  new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid="news-card"]')) {
      window.__firstCard = performance.now();
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
};

async function coldRun(browser, baseURL, storageState, profile) {
  const cold = await browser.newContext({ baseURL, storageState, ...profile.context });
  try {
    await cold.addInitScript(watchFirstCard);
    const tab = await cold.newPage();
    if (profile.cpu || profile.network) {
      const cdp = await cold.newCDPSession(tab);
      if (profile.cpu) await cdp.send('Emulation.setCPUThrottlingRate', { rate: profile.cpu });
      if (profile.network) {
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', profile.network);
      }
    }
    await tab.goto('/app');
    await tab.waitForFunction(() => window.__firstCard !== undefined, null, { timeout: 60_000 });
    const time = await tab.evaluate(() => window.__firstCard);
    const load = await tab.evaluate(() => {
      const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
      const requests = entries.map((e) => ({
        path: new URL(e.name).pathname,
        start: e.startTime,
        firstByte: e.responseStart,
        end: e.responseEnd,
        kb: (e.transferSize || 0) / 1024,
      }));
      return { requests: entries.length, kb: entries.reduce((sum, e) => sum + (e.transferSize || 0), 0) / 1024, timeline: requests };
    });
    return { time, load };
  } finally {
    await cold.close();
  }
}

const daemon = await startDaemon();
const browser = await launchBrowser();
try {
  const { context, page } = await openPage(browser, daemon.url);
  await registerAndSignIn(page, `bench-${Date.now()}@example.test`);
  await page.locator('[data-testid="news-card"]').first().waitFor();
  const storageState = await context.storageState();
  await context.close();

  console.log(`first card on a cold signed-in /app, ${RUNS} runs per profile (${process.env.RADAR_BIN ?? 'target/debug/radar'}):`);
  for (const profile of PROFILES.filter((p) => !ONLY || p.name === ONLY)) {
    const times = [];
    let load = null;
    for (let i = 0; i < RUNS; i++) {
      const run = await coldRun(browser, daemon.url, storageState, profile);
      times.push(run.time);
      if (TIMELINE) {
        console.log(`  ${profile.name} run ${i + 1}: first card at ${run.time.toFixed(0)} ms; ms from navigation start to request, first byte, last byte; KB`);
        for (const r of run.load.timeline.sort((a, b) => a.end - b.end)) {
          console.log(`    ${r.path.padEnd(60)} ${[r.start, r.firstByte, r.end].map((t) => t.toFixed(0).padStart(6)).join('')} ${r.kb.toFixed(1).padStart(7)}`);
        }
      }
      load = run.load;
    }
    times.sort((a, b) => a - b);
    const median = times.length % 2 ? times[(times.length - 1) / 2] : (times[times.length / 2 - 1] + times[times.length / 2]) / 2;
    const p90 = times[Math.min(times.length - 1, Math.ceil(0.9 * times.length) - 1)];
    console.log(
      `  ${profile.name.padEnd(8)} median ${median.toFixed(0)} ms, p90 ${p90.toFixed(0)} ms, best ${times[0].toFixed(0)} ms; ` +
        `${load.requests} requests, ${load.kb.toFixed(0)} KB transferred`,
    );
  }
} finally {
  await browser.close();
  await daemon.stop();
}
