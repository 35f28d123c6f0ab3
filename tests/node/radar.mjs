// The real radar daemon for the protocol tests: `radar serve` on a temporary data
// directory and a free port on 127.0.0.1, its address and anonymous key read from what
// it prints, and its outbox read with the admin command.
//
// The daemon binary is $RADAR_BIN, by default target/debug/radar of this repository.

import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import readline from 'node:readline';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const radarBin = process.env.RADAR_BIN ? resolve(process.env.RADAR_BIN) : join(repo, 'target/debug/radar');

/**
 * The environment of a daemon and its commands: with $RADAR_TEST_PG (a server started by
 * tests/pg/server.sh), a fresh database of that server as the store, so the suite runs
 * on PostgreSQL as it does on the embedded store.
 */
function storeEnv() {
  const env = { ...process.env, RADAR_LOG: 'warn' };
  delete env.RADAR_STORE;
  if (process.env.RADAR_TEST_PG) {
    const server = join(repo, 'tests/pg/server.sh');
    env.RADAR_STORE = execFileSync('bash', [server, 'database', process.env.RADAR_TEST_PG], { encoding: 'utf8' }).trim();
  }
  return env;
}

/** Starts `radar serve --no-demo` with `args`; answers `{ base, anonKey, outbox(), stop() }`. */
export async function startRadar(args = []) {
  assert.ok(existsSync(radarBin), `no radar binary at ${radarBin}: run cargo build -p radar-cli, or set RADAR_BIN`);
  const dataDir = mkdtempSync(join(tmpdir(), 'radar-node-'));
  const serve = ['--data', dataDir, 'serve', '--addr', '127.0.0.1:0', '--no-demo', '--no-feed-polling', ...args];
  const env = storeEnv();
  const daemon = spawn(radarBin, serve, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let base;
  let anonKey;
  await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('radar serve did not start within 60 s')), 60_000);
    daemon.on('exit', (code) => fail(new Error(`radar serve exited with ${code}`)));
    readline.createInterface({ input: daemon.stdout }).on('line', (line) => {
      if (line.startsWith('listening on ')) base = line.slice('listening on '.length).trim();
      if (line.startsWith('anon key: ')) anonKey = line.slice('anon key: '.length).trim();
      if (base && anonKey) {
        clearTimeout(timer);
        ok();
      }
    });
  });
  return {
    base,
    anonKey,
    /** The mails kept in the outbox, newest first. */
    outbox: () => JSON.parse(execFileSync(radarBin, ['--data', dataDir, 'outbox', 'list', '--json'], { encoding: 'utf8', env })),
    async stop() {
      if (daemon.exitCode === null) {
        daemon.removeAllListeners('exit');
        const exited = new Promise((ok) => daemon.once('exit', ok));
        daemon.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
