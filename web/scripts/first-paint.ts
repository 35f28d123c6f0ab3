// A Vite plugin: builds the first paint (src/features/news/first-paint/main.ts) into one small classic
// script of its own, `assets/first-paint-[hash].js`, and writes into index.html the lines that
// ask for it when it has something to draw: an early feed answer is on its way (the inline
// script above it asked for one) and a snapshot is kept. A visitor, or a reader opening any
// other page, downloads nothing more.
//
// Built apart, in one file, because it must run before the app's chunks have arrived: as a
// chunk of the app's build it would import the shared chunks its few functions land in.
import { fileURLToPath } from 'node:url';
import { build, type Plugin, type Rollup } from 'vite';
import { FIRST_PAINT_KEY, FIRST_PAINT_PATH } from '../src/lib/first-paint-key';

const ENTRY = fileURLToPath(new URL('../src/features/news/first-paint/main.ts', import.meta.url));
const SRC = fileURLToPath(new URL('../src', import.meta.url));

/** The first paint's code, minified, as one immediately run function. */
async function script(): Promise<string> {
  const out = (await build({
    configFile: false,
    logLevel: 'warn',
    resolve: { alias: { '@': SRC } },
    build: { write: false, minify: true, lib: { entry: ENTRY, formats: ['iife'], name: 'radarFirstPaint' } },
  })) as Rollup.RollupOutput | Rollup.RollupOutput[];
  const chunk = (Array.isArray(out) ? out : [out]).flatMap((o) => o.output).find((o) => o.type === 'chunk');
  if (!chunk) throw new Error('first-paint: the build wrote no script');
  return chunk.code;
}

const NAME = 'first-paint.js';

export function firstPaint(): Plugin {
  return {
    name: 'radar-first-paint',
    apply: 'build',
    async buildStart() {
      this.emitFile({ type: 'asset', name: NAME, source: await script() });
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        if (!ctx.bundle) return html;
        const file = Object.values(ctx.bundle).find((a) => a.type === 'asset' && a.names.includes(NAME))?.fileName;
        if (!file) throw new Error('first-paint: the script was not emitted');
        // Asked for only where it draws (the feed itself, see paint.ts): TV mode has an early
        // answer too, and would download it for nothing.
        const loader = `<script>try{if(window.__radarEarlyFeed&&/${FIRST_PAINT_PATH.source}/.test(location.pathname)&&!location.search&&localStorage.getItem(${JSON.stringify(FIRST_PAINT_KEY)})){var s=document.createElement('script');s.src='/${file}';document.head.appendChild(s)}}catch(e){}</script>`;
        // Before the stylesheet, like scripts/preload-routes.ts's lines: an inline script after
        // it would wait for the CSS.
        const at = html.search(/<link rel="stylesheet"/);
        return at < 0 ? html.replace('</head>', `    ${loader}\n  </head>`) : `${html.slice(0, at)}${loader}\n    ${html.slice(at)}`;
      },
    },
  };
}
