// Starts the real `radar serve` on a free port and a fresh data directory, and offers the
// CLI commands the tests need (outbox, subscribers) against the same directory.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const webDir = resolve(import.meta.dirname, '..');
export const RADAR_BIN = process.env.RADAR_BIN ? resolve(process.env.RADAR_BIN) : resolve(webDir, '../target/debug/radar');

/**
 * @param {{ args?: string[], bin?: string }} [options] `bin`: another build of radar than RADAR_BIN (the
 *   benchmarks compare two).
 * @returns {Promise<{ url: string, dataDir: string, cli: (args: string[]) => Promise<string>, halt: () => Promise<void>, resume: () => Promise<void>, stop: () => Promise<void>, output: () => string }>}
 */
export async function startDaemon({ args = [], bin = RADAR_BIN } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'radar-e2e-'));
  let addr = '127.0.0.1:0';
  let child;
  let log = '';

  const spawnServe = async () => {
    child = spawn(bin, ['serve', '--addr', addr, '--data', dataDir, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, RADAR_LOG: process.env.RADAR_LOG ?? 'warn' },
    });
    child.stderr.on('data', (chunk) => (log += chunk));
    const started = child;
    return new Promise((resolveUrl, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`radar serve did not start in 30 s:\n${out}\n${log}`)), 30_000);
      started.stdout.on('data', (chunk) => {
        out += chunk;
        log += chunk;
        const match = /listening on (http:\/\/([\d.:]+))/.exec(out);
        if (match) {
          clearTimeout(timer);
          resolveUrl(match[1]);
        }
      });
      started.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`radar serve exited with ${code}:\n${out}\n${log}`));
      });
    });
  };

  const url = await spawnServe();
  addr = new URL(url).host;

  const cli = async (cliArgs) => {
    const { stdout } = await run(bin, [...cliArgs, '--data', dataDir], { timeout: 30_000 });
    return stdout;
  };

  /** Stops the daemon and keeps its data directory. */
  const halt = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };

  /** Starts it again on the same data directory and address (after `halt`). */
  const resume = async () => {
    await spawnServe();
  };

  const stop = async () => {
    await halt();
    rmSync(dataDir, { recursive: true, force: true });
  };

  return { url, dataDir, cli, halt, resume, stop, output: () => log };
}
