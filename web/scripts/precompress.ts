// A Vite plugin: every text asset of the build gets a brotli (`.br`, quality 11, the highest)
// and a gzip (`.gz`, level 9) copy beside it, written only when smaller than the file. The
// daemon embeds them and answers a client that accepts an encoding with the copy as it is
// (daemon/src/web.rs), so nothing is compressed per request and brotli answers are the
// smaller ones: brotli at the quality a server can afford on the fly loses to gzip -9.
// index.html is left out: the daemon writes the client configuration into it and compresses
// the result once, at start.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin, ResolvedConfig } from 'vite';

/** Files worth compressing: text. Fonts (woff2) and images come compressed. */
const TEXT = /\.(js|mjs|css|svg|json|txt|map|webmanifest)$/;

/**
 * The brotli and gzip copies of `data`, each only when smaller than `data`, and the brotli one
 * only when smaller than the gzip one too (a chunk of a few hundred bytes can come out larger
 * in brotli): a client that accepts both then gets the gzip copy.
 */
export function compressed(data: Buffer): { br: Buffer | null; gz: Buffer | null } {
  const br = brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
    },
  });
  const gz = gzipSync(data, { level: 9 });
  return { br: br.length < Math.min(data.length, gz.length) ? br : null, gz: gz.length < data.length ? gz : null };
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

export function precompress(): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'radar-precompress',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    closeBundle() {
      const outDir = join(config.root, config.build.outDir);
      for (const path of files(outDir)) {
        const name = relative(outDir, path);
        if (!TEXT.test(name) || name.startsWith('.vite')) continue;
        const { br, gz } = compressed(readFileSync(path));
        if (br) writeFileSync(`${path}.br`, br);
        if (gz) writeFileSync(`${path}.gz`, gz);
      }
    },
  };
}
