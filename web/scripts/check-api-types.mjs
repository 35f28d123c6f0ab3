// Fails when src/lib/api/schema.d.ts is not what openapi-typescript makes of the committed
// openapi.json: the server's contract changed and `npm run api-types` was not run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const web = resolve(import.meta.dirname, '..');
const committed = join(web, 'src/lib/api/schema.d.ts');
const dir = mkdtempSync(join(tmpdir(), 'radar-api-types-'));
try {
  const fresh = join(dir, 'schema.d.ts');
  execFileSync(join(web, 'node_modules/.bin/openapi-typescript'), [join(web, 'openapi.json'), '-o', fresh], { stdio: 'pipe' });
  if (readFileSync(fresh, 'utf8') !== readFileSync(committed, 'utf8')) {
    console.error('src/lib/api/schema.d.ts is stale: web/openapi.json changed. Run `npm --prefix web run api-types` and commit the result.');
    process.exit(1);
  }
  console.log('API types match web/openapi.json');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
