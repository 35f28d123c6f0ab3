// The landing page's initial JavaScript, gzipped: the entry chunk and everything it imports
// statically, plus what a visitor's cold visit to / fetches at once (the landing route's chunk,
// started by main.tsx; a visitor without a session loads the auth client only when signing
// in), per Vite's manifest. Fails the build above the budget (issue 30: 100 KB), and when a
// brotli copy the build wrote (scripts/precompress.ts) is not smaller than its gzip copy.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const BUDGET_KB = 100;
const dist = new URL('../dist/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));

const startedAtOnce = ['src/app/routes/landing.tsx'];
const roots = [...Object.keys(manifest).filter((key) => manifest[key].isEntry), ...startedAtOnce];
for (const key of startedAtOnce) {
  if (!manifest[key]) {
    console.error(`size: ${key} is not in the build's manifest; update scripts/size.mjs`);
    process.exit(1);
  }
}
const seen = new Set();
const visit = (key) => {
  if (seen.has(key)) return;
  seen.add(key);
  for (const dep of manifest[key].imports ?? []) visit(dep);
};
roots.forEach(visit);

let total = 0;
let served = 0;
for (const key of seen) {
  const file = manifest[key].file;
  if (!file.endsWith('.js')) continue;
  const gz = gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  const br = existsSync(join(dist, `${file}.br`)) ? readFileSync(join(dist, `${file}.br`)).length : gz;
  total += gz;
  served += br;
  console.log(`  ${file.padEnd(40)} ${(gz / 1024).toFixed(1)} KB gzip, ${(br / 1024).toFixed(1)} KB brotli`);
}
const kb = total / 1024;
console.log(`landing page JS: ${kb.toFixed(1)} KB gzipped (budget ${BUDGET_KB} KB), ${(served / 1024).toFixed(1)} KB as served with brotli`);

const assets = join(dist, 'assets');
const larger = readdirSync(assets)
  .filter((f) => f.endsWith('.br') && existsSync(join(assets, f.replace(/\.br$/, '.gz'))))
  .filter((f) => readFileSync(join(assets, f)).length >= readFileSync(join(assets, f.replace(/\.br$/, '.gz'))).length);
if (larger.length) {
  console.error(`brotli copies not smaller than their gzip copies: ${larger.join(', ')}`);
  process.exit(1);
}
if (kb > BUDGET_KB) {
  console.error(`the landing page's JS is over budget by ${(kb - BUDGET_KB).toFixed(1)} KB`);
  process.exit(1);
}
