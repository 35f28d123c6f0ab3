// The real @supabase/supabase-js (from npm, pinned in package.json) against the real
// radar daemon on a temporary data directory: the auth calls the web app makes, and a
// password reset through the mailed link, read from a small SMTP server started here.
//
// Run: cargo build -p radar-cli && cd tests/node && npm ci && npm test
// The daemon binary is $RADAR_BIN, by default target/debug/radar of this repository.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import readline from 'node:readline';
import { createClient } from '@supabase/supabase-js';
import { startRadar } from './radar.mjs';

const PASSWORD = 'correct horse';

let radar;
let base;
let anonKey;
let smtp;

/** A stand-in SMTP server on 127.0.0.1: enough of the protocol to receive mail. */
function startSmtp() {
  const received = [];
  const waiters = [];
  const server = net.createServer((socket) => {
    socket.write('220 localhost stand-in ESMTP\r\n');
    const lines = readline.createInterface({ input: socket, crlfDelay: Infinity });
    let inData = false;
    let body = [];
    let to = '';
    lines.on('line', (line) => {
      if (inData) {
        if (line === '.') {
          inData = false;
          const mail = { to, text: decodeMail(body) };
          const waiter = waiters.shift();
          if (waiter) waiter(mail);
          else received.push(mail);
          socket.write('250 OK queued\r\n');
        } else {
          body.push(line.startsWith('.') ? line.slice(1) : line);
        }
        return;
      }
      const verb = line.split(' ')[0].toUpperCase();
      if (verb === 'RCPT') to = (line.match(/<([^>]*)>/) || [])[1] || '';
      if (verb === 'DATA') {
        inData = true;
        body = [];
        socket.write('354 end with <CRLF>.<CRLF>\r\n');
      } else if (verb === 'QUIT') {
        socket.end('221 bye\r\n');
      } else {
        socket.write('250 OK\r\n');
      }
    });
    // A client that drops the connection (the daemon's mailer may reset it once done)
    // is no failure of the test: readline re-emits the socket's error, so both listen.
    socket.on('error', () => {});
    lines.on('error', () => {});
  });
  return new Promise((ok) => {
    server.listen(0, '127.0.0.1', () => {
      ok({
        url: `smtp://127.0.0.1:${server.address().port}`,
        close: () => server.close(),
        next: () =>
          received.length
            ? Promise.resolve(received.shift())
            : new Promise((res, rej) => {
                const timer = setTimeout(() => rej(new Error('no mail within 20 s')), 20_000);
                waiters.push((m) => {
                  clearTimeout(timer);
                  res(m);
                });
              }),
      });
    });
  });
}

/** The body of a quoted-printable message, decoded. */
function decodeMail(lines) {
  const bodyStart = lines.indexOf('');
  const qp = lines.slice(bodyStart + 1).join('\n').replace(/=\n/g, '');
  return Buffer.from(
    qp.replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');
}

async function startDaemon() {
  radar = await startRadar(['--smtp-url', smtp.url]);
  ({ base, anonKey } = radar);
}

class NoWebSocket {
  constructor() {
    throw new Error('realtime is not part of this test');
  }
}

/** A client as the web app configures it (implicit flow), or with `flowType: 'pkce'` as
 * server-side and mobile apps do, with its own in-memory storage. */
function client(flowType = 'implicit') {
  const store = new Map();
  const storage = {
    getItem: (k) => (store.has(k) ? store.get(k) : null),
    setItem: (k, v) => void store.set(k, v),
    removeItem: (k) => void store.delete(k),
  };
  const supabase = createClient(base, anonKey, {
    auth: {
      storageKey: 'radar-auth',
      storage,
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      flowType,
    },
    // Node 20 has no WebSocket; realtime is never used here, so it gets one that refuses.
    realtime: { transport: NoWebSocket },
  });
  return { supabase, storage: store };
}

/** Status of a signed-in call to the daemon's own API. */
async function apiStatus(accessToken) {
  const res = await fetch(`${base}/api/favorites`, { headers: { Authorization: `Bearer ${accessToken}` } });
  return res.status;
}

before(async () => {
  smtp = await startSmtp();
  await startDaemon();
});

after(async () => {
  await radar?.stop();
  smtp?.close();
});

test('sign-up, sign-in, user, session, refresh, password change and sign-out', async () => {
  const { supabase, storage } = client();
  const email = 'ada@example.com';

  const up = await supabase.auth.signUp({ email, password: PASSWORD });
  assert.equal(up.error, null);
  assert.ok(up.data.session, 'sign-up answers a session while confirmation is off');
  assert.equal(up.data.user.email, email);
  assert.ok(storage.has('radar-auth'), 'the session is kept under the radar-auth key');

  const dup = await supabase.auth.signUp({ email: ' ADA@example.com', password: PASSWORD });
  assert.equal(dup.error?.code, 'user_already_exists');
  assert.equal(dup.error?.status, 422);
  const weak = await supabase.auth.signUp({ email: 'bob@example.com', password: '12345' });
  assert.equal(weak.error?.name, 'AuthWeakPasswordError');
  assert.deepEqual(weak.error?.reasons, ['length']);

  const wrong = await supabase.auth.signInWithPassword({ email, password: 'wrong password' });
  assert.equal(wrong.error?.code, 'invalid_credentials');
  assert.equal(wrong.error?.status, 400);
  assert.equal(wrong.error?.message, 'Invalid login credentials');

  const signIn = await supabase.auth.signInWithPassword({ email, password: PASSWORD });
  assert.equal(signIn.error, null);
  const session = signIn.data.session;
  assert.equal(session.token_type, 'bearer');
  assert.equal(signIn.data.user.has_active_subscription, false);
  assert.deepEqual(signIn.data.user.user_metadata.subscription, { isActive: false, customerId: null });

  const user = await supabase.auth.getUser();
  assert.equal(user.error, null);
  assert.equal(user.data.user.id, signIn.data.user.id);
  assert.equal(user.data.user.email, email);

  const current = await supabase.auth.getSession();
  assert.equal(current.data.session.access_token, session.access_token);
  assert.equal(await apiStatus(session.access_token), 200);

  const refreshed = await supabase.auth.refreshSession();
  assert.equal(refreshed.error, null);
  assert.notEqual(refreshed.data.session.refresh_token, session.refresh_token, 'refresh tokens rotate');
  assert.equal((await supabase.auth.getSession()).data.session.refresh_token, refreshed.data.session.refresh_token);
  assert.equal(await apiStatus(refreshed.data.session.access_token), 200);

  // Another device, then a password change here: that device is signed out.
  const other = client().supabase;
  assert.equal((await other.auth.signInWithPassword({ email, password: PASSWORD })).error, null);
  const updated = await supabase.auth.updateUser({ password: 'new password' });
  assert.equal(updated.error, null);
  assert.equal(updated.data.user.email, email);
  const otherUser = await other.auth.getUser();
  assert.ok(otherUser.error, 'the other session ended');
  assert.equal((await supabase.auth.getUser()).error, null, 'this session stays');

  const token = (await supabase.auth.getSession()).data.session.access_token;
  assert.equal((await supabase.auth.signOut()).error, null);
  assert.equal((await supabase.auth.getSession()).data.session, null);
  assert.ok(!storage.has('radar-auth'), 'sign-out removes the stored session');
  assert.equal(await apiStatus(token), 401);

  const old = await supabase.auth.signInWithPassword({ email, password: PASSWORD });
  assert.equal(old.error?.code, 'invalid_credentials');
  assert.equal((await supabase.auth.signInWithPassword({ email, password: 'new password' })).error, null);
  await supabase.auth.signOut();
});

test('password reset through the mailed link and the implicit-flow fragment', async () => {
  const { supabase } = client();
  const email = 'reset@example.com';
  assert.equal((await supabase.auth.signUp({ email, password: PASSWORD })).error, null);
  await supabase.auth.signOut();

  const sent = await supabase.auth.resetPasswordForEmail(email, { redirectTo: `${base}/reset-password` });
  assert.equal(sent.error, null);
  const mail = await smtp.next();
  assert.equal(mail.to, email);
  const link = mail.text.match(/https?:\/\/\S+/)[0];
  assert.ok(link.includes('/auth/v1/verify?') && link.includes('type=recovery'), link);
  // The same message is kept in the outbox, where an install without SMTP reads it.
  const outbox = radar.outbox();
  assert.ok(outbox.find((m) => m.to === email && m.text.includes(link)), 'the link is in the outbox');

  // What the browser does with the link: follow the redirect to the reset page.
  const res = await fetch(link, { redirect: 'manual' });
  assert.equal(res.status, 303);
  const location = new URL(res.headers.get('location'));
  assert.equal(location.origin + location.pathname, `${base}/reset-password`);
  const params = new URLSearchParams(location.hash.slice(1));
  assert.equal(params.get('type'), 'recovery');
  for (const key of ['access_token', 'refresh_token', 'expires_in', 'expires_at', 'token_type']) {
    assert.ok(params.get(key), `${key} in the fragment`);
  }

  // What detectSessionInUrl does with the fragment, through the public API.
  const set = await supabase.auth.setSession({
    access_token: params.get('access_token'),
    refresh_token: params.get('refresh_token'),
  });
  assert.equal(set.error, null);
  assert.equal(set.data.user.email, email);
  assert.equal((await supabase.auth.updateUser({ password: 'reset password' })).error, null);
  await supabase.auth.signOut();
  assert.equal((await supabase.auth.signInWithPassword({ email, password: 'reset password' })).error, null);

  // The link works once.
  const again = await fetch(link, { redirect: 'manual' });
  const fragment = new URLSearchParams(new URL(again.headers.get('location')).hash.slice(1));
  assert.equal(fragment.get('error_code'), 'otp_expired');
  assert.equal(fragment.get('access_token'), null);

  // An address that is not registered gets the same answer.
  const unknown = await supabase.auth.resetPasswordForEmail('nobody@example.com');
  assert.equal(unknown.error, null);
  await supabase.auth.signOut();
});

test('password reset with flowType pkce: the mailed link lands with ?code=, exchanged for a session', async () => {
  const { supabase, storage } = client('pkce');
  const email = 'pkce@example.com';
  assert.equal((await supabase.auth.signUp({ email, password: PASSWORD })).error, null);
  await supabase.auth.signOut();

  // auth-js keeps the verifier in storage and sends its challenge with the request.
  const sent = await supabase.auth.resetPasswordForEmail(email, { redirectTo: `${base}/reset-password` });
  assert.equal(sent.error, null);
  assert.ok(storage.has('radar-auth-code-verifier'), 'the verifier is kept for the exchange');
  const mail = await smtp.next();
  assert.equal(mail.to, email);
  const link = mail.text.match(/https?:\/\/\S+/)[0];
  assert.ok(new URL(link).searchParams.get('token').startsWith('pkce_'), link);

  // The browser follows the link to the reset page, which gets ?code= and no fragment.
  const res = await fetch(link, { redirect: 'manual' });
  assert.equal(res.status, 303);
  const location = new URL(res.headers.get('location'));
  assert.equal(location.origin + location.pathname, `${base}/reset-password`);
  assert.equal(location.hash, '');
  const code = location.searchParams.get('code');
  assert.ok(code, 'an authorization code in the query');

  const exchanged = await supabase.auth.exchangeCodeForSession(code);
  assert.equal(exchanged.error, null);
  assert.equal(exchanged.data.user.email, email);
  assert.equal(exchanged.data.redirectType, 'recovery', 'auth-js knows it came from a reset link');
  assert.equal(await apiStatus(exchanged.data.session.access_token), 200);
  assert.equal((await supabase.auth.updateUser({ password: 'pkce password' })).error, null);
  await supabase.auth.signOut();
  assert.equal((await supabase.auth.signInWithPassword({ email, password: 'pkce password' })).error, null);

  // The code is spent: another client holding the same verifier is refused by the server.
  const again = client('pkce');
  again.storage.set('radar-auth-code-verifier', JSON.stringify('x'.repeat(56)));
  const reused = await again.supabase.auth.exchangeCodeForSession(code);
  assert.equal(reused.error?.code, 'flow_state_not_found');
  assert.equal(reused.error?.status, 404);
  await supabase.auth.signOut();
});

test("features Radar lacks answer GoTrue's \"disabled\" errors, as auth-js reads them", async () => {
  const { supabase } = client();
  const anon = await supabase.auth.signInAnonymously();
  assert.equal(anon.error?.code, 'anonymous_provider_disabled');
  assert.equal(anon.error?.status, 422);
  const sso = await supabase.auth.signInWithSSO({ domain: 'example.com' });
  assert.equal(sso.error?.code, 'saml_provider_disabled');
  const otp = await supabase.auth.signInWithOtp({ email: 'otp@example.com' });
  assert.equal(otp.error?.code, 'otp_disabled');
  assert.equal(otp.error?.status, 422);
  const phone = await supabase.auth.signInWithPassword({ phone: '+15555550100', password: PASSWORD });
  assert.equal(phone.error?.code, 'phone_provider_disabled');

  assert.equal((await supabase.auth.signUp({ email: 'mfa@example.com', password: PASSWORD })).error, null);
  const enroll = await supabase.auth.mfa.enroll({ factorType: 'totp' });
  assert.equal(enroll.error?.code, 'mfa_totp_enroll_not_enabled');
  assert.equal(enroll.error?.message, 'MFA enroll is disabled for TOTP');
  await supabase.auth.signOut();
});

/** The `token` of the first /verify link in a mail. */
function linkToken(mail) {
  const link = mail.text.match(/https?:\/\/\S+/)[0];
  return new URL(link).searchParams.get('token');
}

// GoTrue internal/api/user.go and verify.go (secure e-mail change): updateUser({email})
// answers the user with new_email and mails both addresses; verifyOtp of the first
// token answers no session (GoTrue's "Confirmation link accepted" message), the second
// a session with the new address. The session from before stays valid.
test('e-mail change: updateUser({email}) and verifyOtp({type: "email_change"}) for both links', async () => {
  const { supabase } = client();
  const email = 'change@example.com';
  const next = 'changed@example.com';
  assert.equal((await supabase.auth.signUp({ email, password: PASSWORD })).error, null);

  const asked = await supabase.auth.updateUser({ email: next }, { emailRedirectTo: `${base}/auth/callback` });
  assert.equal(asked.error, null);
  assert.equal(asked.data.user.email, email);
  assert.equal(asked.data.user.new_email, next);
  const mails = [await smtp.next(), await smtp.next()];
  const toNew = mails.find((m) => m.to === next);
  const toCurrent = mails.find((m) => m.to === email);
  assert.ok(toNew && toCurrent, 'a link to each address');

  const first = await client().supabase.auth.verifyOtp({ type: 'email_change', token_hash: linkToken(toNew) });
  assert.equal(first.error, null);
  assert.equal(first.data.session, null, 'the first of two links signs nobody in');
  const last = await client().supabase.auth.verifyOtp({ type: 'email_change', token_hash: linkToken(toCurrent) });
  assert.equal(last.error, null);
  assert.equal(last.data.user.email, next);
  const notice = await smtp.next();
  assert.equal(notice.to, email, 'the old address gets a notice');

  const me = await supabase.auth.getUser();
  assert.equal(me.error, null, 'the session from before stays valid');
  assert.equal(me.data.user.email, next);
  const taken = await supabase.auth.updateUser({ email: 'ada@example.com' });
  assert.equal(taken.error?.code, 'email_exists');
  assert.equal(taken.error?.status, 422);
  await supabase.auth.signOut();
});

// GoTrue internal/api/reauthenticate.go and user.go: reauthenticate() mails a nonce that
// updateUser({password, nonce}) needs while secure password change is on.
test('reauthentication: reauthenticate() mails the nonce updateUser({password, nonce}) needs', async () => {
  const secure = await startRadar(['--smtp-url', smtp.url, '--secure-password-change', '--reauthentication-window', '0']);
  try {
    const supabase = createClient(secure.base, secure.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
      realtime: { transport: NoWebSocket },
    });
    const email = 'nonce@example.com';
    assert.equal((await supabase.auth.signUp({ email, password: PASSWORD })).error, null);
    const bare = await supabase.auth.updateUser({ password: 'another password' });
    assert.equal(bare.error?.code, 'reauthentication_needed');
    assert.equal(bare.error?.status, 400);

    assert.equal((await supabase.auth.reauthenticate()).error, null);
    const mail = await smtp.next();
    assert.equal(mail.to, email);
    const nonce = mail.text.match(/\b\d{6}\b/)[0];
    const wrong = await supabase.auth.updateUser({ password: 'another password', nonce: nonce === '000000' ? '000001' : '000000' });
    assert.equal(wrong.error?.code, 'reauthentication_not_valid');
    assert.equal((await supabase.auth.updateUser({ password: 'another password', nonce })).error, null);
    await supabase.auth.signOut();
    assert.equal((await supabase.auth.signInWithPassword({ email, password: 'another password' })).error, null);
  } finally {
    await secure.stop();
  }
});
