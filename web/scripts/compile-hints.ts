// A Vite plugin: the scripts a first load runs (the entry with its static imports, and what the
// listed signed-in pages preload) start with V8's explicit compile hint,
// `//# allFunctionsCalledOnLoad`. Chromium (136 on) then compiles every function of such a
// file while the file streams in, on a background thread, instead of compiling each one on the
// main thread the first time it is called; most of what these files hold does run before the
// first card (React's renderer, the router, the feed). On the phone profile of
// web/bench/first-card.mjs that drew the first card 9% sooner (bench/README.md). Other chunks,
// loaded on demand and only partly run, stay lazily compiled; browsers without the hint read a
// comment.
//
// The hint must be a file's first line, so it is written after Vite has put its own preamble
// (the dependency map of lazy imports) at the top, and before scripts/precompress.ts compresses
// the files. A source map of the file, when the build writes one, is shifted by that line. The
// files keep the names hashed from their content without it: the hint changes no behaviour, so
// a copy cached before it is as good.
import type { Plugin } from 'vite';
import { firstLoads } from './preload-routes';

const COMPILE_HINT = '//# allFunctionsCalledOnLoad';

export function compileHints(routes: Record<string, string>): Plugin {
  return {
    name: 'radar-compile-hints',
    apply: 'build',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_, bundle) {
        const { entry, byPath } = firstLoads(bundle, routes);
        for (const file of new Set([...entry, ...Object.values(byPath).flat()])) {
          const chunk = bundle[file];
          if (chunk?.type !== 'chunk') continue;
          chunk.code = `${COMPILE_HINT}\n${chunk.code}`;
          const map = bundle[`${file}.map`];
          if (map?.type === 'asset' && typeof map.source === 'string') {
            const json = JSON.parse(map.source);
            json.mappings = `;${json.mappings}`;
            map.source = JSON.stringify(json);
          }
        }
      },
    },
  };
}
