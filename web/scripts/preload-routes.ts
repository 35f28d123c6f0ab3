// A Vite plugin: a signed-in reader's first load of a feed page downloads that page's chunks
// together with the entry script, instead of one round trip later, when the router asks for
// them. The auth client is not among them: the page is drawn from the stored session, and the
// client loads once the page has (src/lib/auth.tsx), leaving the bandwidth to the first story. It writes into index.html the chunk files of each listed route and
// a few lines that add `<link rel="modulepreload">` for the current path only, so a visitor on
// the landing page downloads nothing more. The lines go before the stylesheet, which would
// otherwise hold them back until the CSS has arrived.
import type { Plugin } from 'vite';

type Chunk = { type: 'chunk'; fileName: string; imports: string[]; facadeModuleId: string | null; isEntry: boolean };
type Bundle = Record<string, { type: string }>;

/**
 * What a first load runs, per the bundle: `entry`, the files the entry script loads (itself and
 * its static imports, which every page runs), and `byPath`, for each listed route, the files
 * its page needs beyond those.
 */
export function firstLoads(bundle: Bundle, routes: Record<string, string>): { entry: Set<string>; byPath: Record<string, string[]> } {
  const chunks = Object.values(bundle).filter((c): c is Chunk => c.type === 'chunk');
  const byFile = new Map(chunks.map((c) => [c.fileName, c]));
  const closure = (chunk: Chunk, seen = new Set<string>()) => {
    if (seen.has(chunk.fileName)) return seen;
    seen.add(chunk.fileName);
    for (const file of chunk.imports) {
      const next = byFile.get(file);
      if (next) closure(next, seen);
    }
    return seen;
  };
  const entry = new Set(chunks.filter((c) => c.isEntry).flatMap((c) => [...closure(c)]));
  const filesOf = (moduleId: string) => {
    const chunk = chunks.find((c) => c.facadeModuleId?.endsWith(moduleId));
    if (!chunk) throw new Error(`preload-routes: no chunk for ${moduleId}`);
    return [...closure(chunk)].filter((file) => !entry.has(file));
  };
  return { entry, byPath: Object.fromEntries(Object.entries(routes).map(([path, id]) => [path, filesOf(id)])) };
}

export function preloadRoutes(routes: Record<string, string>): Plugin {
  return {
    name: 'radar-preload-routes',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        if (!ctx.bundle) return html;
        const { byPath } = firstLoads(ctx.bundle, routes);
        const script = `<script>try{if(localStorage.getItem('radar-auth'))(${JSON.stringify(byPath)}[location.pathname.replace(/\\/$/,'')]||[]).forEach(function(f){var l=document.createElement('link');l.rel='modulepreload';l.crossOrigin='';l.href='/'+f;document.head.appendChild(l)})}catch(e){}</script>`;
        // Before the stylesheet: an inline script waits for the style sheets above it, which
        // would hold the chunks back until the CSS has arrived. After the entry script, so
        // that one is asked for first.
        const at = html.search(/<link rel="stylesheet"/);
        return at < 0 ? html.replace('</head>', `    ${script}\n  </head>`) : `${html.slice(0, at)}${script}\n    ${html.slice(at)}`;
      },
    },
  };
}
