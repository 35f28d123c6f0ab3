// @supabase/ssr's createBrowserClient (which always uses PKCE, and keeps the session and
// the code verifier in cookies) in Debian's Chromium, driven by playwright-core, against
// the real radar daemon: sign-up, sign-out, sign-in, a password reset whose mailed link
// (read from the daemon's outbox) lands on the page with ?code=, and sign-out; an e-mail
// change confirmed from both addresses, and reauthentication.
//
// The page comes from a small static server started here on 127.0.0.1, another origin
// than the daemon's (so the daemon runs with --cors-origin and --redirect-allow for it);
// the client is bundled for the browser with esbuild.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { startRadar } from './radar.mjs';

const PASSWORD = 'correct horse';
const EMAIL = 'ssr@example.com';

let site;
let radar;
let browser;

/** Serves the page (with the daemon's address and key) and the bundled client. */
async function startSite() {
  const bundle = await build({
    stdin: {
      contents: "import { createBrowserClient } from '@supabase/ssr'; window.createBrowserClient = createBrowserClient;",
      resolveDir: fileURLToPath(new URL('.', import.meta.url)),
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
  });
  const js = bundle.outputFiles[0].text;
  const server = http.createServer((req, res) => {
    if (req.url === '/client.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(js);
      return;
    }
    const page = `<!doctype html><meta charset="utf-8"><title>ssr</title><script src="/client.js"></script>
<script>window.supabase = createBrowserClient(${JSON.stringify(radar.base)}, ${JSON.stringify(radar.anonKey)});</script>`;
    res.writeHead(200, { 'Content-Type': 'text/html' }).end(page);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

before(async () => {
  // The page is rendered per request, so the site can start (and name its origin for the
  // daemon's CORS and redirect allow-lists) before the daemon does.
  site = await startSite();
  // GoTrue's allow-list globs: `**` allows every path of the site (an entry without a
  // wildcard would have to match exactly).
  radar = await startRadar(['--cors-origin', site.url, '--redirect-allow', `${site.url}/**`]);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  site?.close();
  await radar?.stop();
});

test('createBrowserClient: sign-up, sign-in, reset by mailed link with PKCE, sign-out', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${site.url}/`);
  const call = (fn, arg) => page.evaluate(fn, arg);

  const up = await call(async ([email, password]) => {
    const { data, error } = await window.supabase.auth.signUp({ email, password });
    return { error: error?.message, email: data.user?.email, session: !!data.session };
  }, [EMAIL, PASSWORD]);
  assert.deepEqual(up, { error: undefined, email: EMAIL, session: true });
  // The session lives in the cookies, where a server-side client would read it.
  const cookies = await page.context().cookies(site.url);
  assert.ok(cookies.some((c) => c.name.endsWith('-auth-token')), JSON.stringify(cookies.map((c) => c.name)));
  assert.equal(await call(async () => (await window.supabase.auth.signOut()).error?.message), undefined);

  const signedIn = await call(async ([email, password]) => {
    const { data, error } = await window.supabase.auth.signInWithPassword({ email, password });
    return { error: error?.message, email: data.user?.email };
  }, [EMAIL, PASSWORD]);
  assert.deepEqual(signedIn, { error: undefined, email: EMAIL });
  await call(async () => window.supabase.auth.signOut());

  // The reset: PKCE, the verifier kept in a cookie until the link comes back.
  const sent = await call(
    async ([email, redirectTo]) => (await window.supabase.auth.resetPasswordForEmail(email, { redirectTo })).error?.message,
    [EMAIL, `${site.url}/reset-password`],
  );
  assert.equal(sent, undefined);
  const mail = radar.outbox().find((m) => m.to === EMAIL);
  const link = mail.text.match(/https?:\/\/\S+/)[0];
  assert.ok(new URL(link).searchParams.get('token').startsWith('pkce_'), link);

  // Following it lands on the page with ?code=, which the client exchanges by itself.
  await page.goto(link);
  const landed = new URL(page.url());
  assert.equal(landed.origin + landed.pathname, `${site.url}/reset-password`);
  assert.ok(landed.searchParams.get('code'), page.url());
  const recovered = await call(async () => {
    const { data, error } = await window.supabase.auth.getSession();
    return { error: error?.message, email: data.session?.user.email };
  });
  assert.deepEqual(recovered, { error: undefined, email: EMAIL });
  const changed = await call(async () => (await window.supabase.auth.updateUser({ password: 'a new password' })).error?.message);
  assert.equal(changed, undefined);
  await call(async () => window.supabase.auth.signOut());
  assert.equal(await call(async () => (await window.supabase.auth.getSession()).data.session), null);

  const again = await call(async ([email, password]) => {
    const { data, error } = await window.supabase.auth.signInWithPassword({ email, password });
    return { error: error?.message, email: data.user?.email };
  }, [EMAIL, 'a new password']);
  assert.deepEqual(again, { error: undefined, email: EMAIL });
  assert.deepEqual(errors, []);
  await page.close();
});

/** The newest mailed /verify link to `to`. */
function linkTo(to) {
  const mail = radar.outbox().find((m) => m.to === to);
  return mail.text.match(/https?:\/\/\S+/)[0];
}

// GoTrue internal/api/user.go, mail.go and verify.go: with PKCE, updateUser({email}) sends
// the challenge; the first followed link lands with GoTrue's "Confirmation link accepted"
// message, the second with ?code=, which the client exchanges for the changed account.
// reauthenticate.go: reauthenticate() mails a six-digit nonce for updateUser.
test('createBrowserClient: e-mail change from both addresses with PKCE, and reauthentication', async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${site.url}/`);
  const call = (fn, arg) => page.evaluate(fn, arg);
  const [from, to] = ['ssr-change@example.com', 'ssr-changed@example.com'];
  const up = await call(async ([email, password]) => (await window.supabase.auth.signUp({ email, password })).error?.message, [from, PASSWORD]);
  assert.equal(up, undefined);

  const asked = await call(async ([email, emailRedirectTo]) => {
    const { data, error } = await window.supabase.auth.updateUser({ email }, { emailRedirectTo });
    return { error: error?.message, email: data.user?.email, next: data.user?.new_email };
  }, [to, `${site.url}/profile`]);
  assert.deepEqual(asked, { error: undefined, email: from, next: to });
  const toNew = linkTo(to);
  assert.ok(new URL(toNew).searchParams.get('token').startsWith('pkce_'), toNew);

  await page.goto(toNew);
  const first = new URL(page.url());
  assert.equal(first.origin + first.pathname, `${site.url}/profile`);
  assert.match(first.searchParams.get('message') ?? '', /^Confirmation link accepted/);
  await page.goto(linkTo(from));
  assert.ok(new URL(page.url()).searchParams.get('code'), page.url());
  const changed = await call(async () => {
    const { data, error } = await window.supabase.auth.getUser();
    return { error: error?.message, email: data.user?.email };
  });
  assert.deepEqual(changed, { error: undefined, email: to });

  assert.equal(await call(async () => (await window.supabase.auth.reauthenticate()).error?.message), undefined);
  const nonce = radar.outbox().find((m) => m.to === to).text.match(/\b\d{6}\b/)[0];
  const updated = await call(async (n) => (await window.supabase.auth.updateUser({ password: 'reauthenticated', nonce: n })).error?.message, nonce);
  assert.equal(updated, undefined);
  await call(async () => window.supabase.auth.signOut());
  assert.deepEqual(errors, []);
  await page.close();
});
