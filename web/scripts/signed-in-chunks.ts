// A Vite plugin: what the signed-in reader's first page (/app) needs beyond the entry script
// goes into three chunks: what only signed-in pages need, what it shares with the pages open
// to visitors, and what it shares with the landing page; /tv-mode loads the same ones. Left to
// itself the bundler makes a chunk for every set of pages that share a module, and /app's
// first load asked for twenty-one of them, most under 1 KB. Over HTTP/1.1 a browser opens six
// connections to a host, so on a phone (150 ms a request) they queued behind each other and
// the first story waited for the last of them; now it asks for four. The entry script loads
// none of the three chunks, the landing page (whose JS has a budget) only the last, and a
// visitor's page never the reader's.
import type { Plugin } from 'vite';
import { parseAst } from 'rolldown/parseAst';

/** Which group a module goes to: its test. */
type Test = (id: string) => boolean;

/** What a module is asked for: some of its exports, or all of it (`'*'`). */
type Wanted = Set<string> | '*';

/** One static import of a module: where from, and which of that module's exports. */
type Edge = { source: string; names: Wanted };

/** A module that only passes on other modules' exports (`export { x } from './x'`). */
type Barrel = { exports: Map<string, Edge>; all: string[] };

type Parsed = { edges: Edge[]; barrel: Barrel | null };

const name = (node: { type: string; name?: string; value?: unknown }) => (node.type === 'Identifier' ? node.name! : String(node.value));

/**
 * The module's imports, and when it is a barrel, where each of its exports comes from. Null
 * when the code cannot be read as a JavaScript module, so that the caller follows all of its
 * imports instead.
 */
function parse(code: string, id: string): Parsed | null {
  let program;
  try {
    program = parseAst(code, { lang: /\.tsx?$/.test(id) ? 'tsx' : 'jsx' }, id);
  } catch {
    return null;
  }
  const edges: Edge[] = [];
  const imported = new Map<string, Edge>();
  const exports = new Map<string, Edge>();
  const all: string[] = [];
  let barrel = true;
  for (const node of program.body) {
    if (node.type === 'ImportDeclaration') {
      if (node.importKind === 'type') continue;
      const names = new Set<string>();
      let whole = false;
      for (const s of node.specifiers) {
        if (s.type === 'ImportSpecifier' && s.importKind === 'type') continue;
        const one = s.type === 'ImportNamespaceSpecifier' ? null : s.type === 'ImportDefaultSpecifier' ? 'default' : name(s.imported);
        if (one === null) whole = true;
        else names.add(one);
        imported.set(s.local.name, { source: node.source.value, names: one === null ? '*' : new Set([one]) });
      }
      edges.push({ source: node.source.value, names: whole ? '*' : names });
    } else if (node.type === 'ExportNamedDeclaration' && !node.declaration) {
      if (node.exportKind === 'type') continue;
      for (const s of node.specifiers) {
        const local = name(s.local);
        const from = node.source ? { source: node.source.value, names: new Set([local]) } : imported.get(local);
        if (from) exports.set(name(s.exported), from);
        else barrel = false;
        if (node.source) edges.push({ source: node.source.value, names: new Set([local]) });
      }
    } else if (node.type === 'ExportAllDeclaration') {
      edges.push({ source: node.source.value, names: '*' });
      if (node.exported) barrel = false;
      else all.push(node.source.value);
    } else if (!(node.type === 'ExpressionStatement' && node.directive)) {
      barrel = false;
    }
  }
  return { edges, barrel: barrel ? { exports, all } : null };
}

/**
 * `first`: the signed-in pages a reader opens the app on, the groups drawn from what the first
 * of them needs (the others load what of it they use); `open`: the other pages a visitor
 * without a session can load; `landing`: the page whose JS is budgeted. All are module paths,
 * matched at the end of the module id. Returns the plugin, which reads the module graph once it
 * is built, and the tests of three groups: what only signed-in pages need (`reader`); what the
 * first page shares with the open ones (`shared`), which a visitor on the sign-up page
 * downloads in one piece rather than the reader's whole chunk; and what it shares with the
 * landing page (`common`), the one group the landing page loads.
 */
export function signedInChunks(first: string[], open: string[], landing: string): { plugin: Plugin; reader: Test; shared: Test; common: Test } {
  let reader = new Set<string>();
  let shared = new Set<string>();
  let common = new Set<string>();
  const plugin: Plugin = {
    name: 'radar-signed-in-chunks',
    apply: 'build',
    async buildEnd() {
      const ids = [...this.getModuleIds()];
      const find = (page: string) => {
        const id = ids.find((m) => m.endsWith(page));
        if (!id) this.error(`signed-in-chunks: no module ${page}`);
        return id;
      };
      const resolved = new Map<string, string | null>();
      const resolve = async (source: string, importer: string) => {
        const key = `${importer}\0${source}`;
        if (!resolved.has(key)) resolved.set(key, (await this.resolve(source, importer))?.id ?? null);
        return resolved.get(key)!;
      };
      const parsed = new Map<string, Parsed | null>();
      const read = (id: string) => {
        if (!parsed.has(id)) {
          const code = this.getModuleInfo(id)?.code;
          parsed.set(id, code == null ? null : parse(code, id));
        }
        return parsed.get(id)!;
      };
      // What modules pull in with them, following a barrel only to the exports asked of it:
      // importing one icon from an icon library's index is not a need of every icon.
      const closure = async (roots: string[]) => {
        const seen = new Map<string, Wanted>();
        const stack: [string, Wanted][] = roots.map((id) => [id, '*']);
        while (stack.length) {
          const [id, names] = stack.pop()!;
          const had = seen.get(id);
          if (had === '*' || (had && names !== '*' && [...names].every((n) => had.has(n)))) continue;
          const wanted: Wanted = names === '*' || had === undefined ? names : new Set([...had, ...names]);
          seen.set(id, wanted);
          const module = read(id);
          if (module?.barrel && wanted !== '*') {
            for (const n of wanted) {
              const from = module.barrel.exports.get(n);
              const sources = from ? [from] : module.barrel.all.map((source) => ({ source, names: new Set([n]) }));
              for (const edge of sources) {
                const next = await resolve(edge.source, id);
                if (next) stack.push([next, edge.names]);
              }
            }
            continue;
          }
          // Every import the bundler found (CommonJS requires and the JSX runtime included),
          // all of each module but a barrel, of which only the names this module imports.
          const asked = new Map<string, Wanted>();
          for (const edge of module?.edges ?? []) {
            const next = await resolve(edge.source, id);
            if (!next || !read(next)?.barrel) continue;
            const before = asked.get(next);
            asked.set(next, before === '*' || edge.names === '*' ? '*' : new Set([...(before ?? []), ...edge.names]));
          }
          for (const next of this.getModuleInfo(id)?.importedIds ?? []) stack.push([next, asked.get(next) ?? '*']);
        }
        return new Set(seen.keys());
      };
      const pages = first.map(find);
      const entry = await closure(ids.filter((id) => this.getModuleInfo(id)?.isEntry));
      const front = await closure([find(landing)]);
      const visitor = await closure(open.map(find));
      // The pages keep their own chunks, each still the one its route loads. The groups hold what
      // the first page needs: what only another page needs stays in that page's chunk, which it
      // loads anyway, and out of the first page's download.
      const needs = [...(await closure(pages.slice(0, 1)))].filter((id) => !pages.includes(id) && !entry.has(id));
      common = new Set(needs.filter((id) => front.has(id)));
      reader = new Set(needs.filter((id) => !front.has(id) && !visitor.has(id)));
      shared = new Set(needs.filter((id) => !front.has(id) && visitor.has(id)));
    },
    // The groups were drawn from the module graph; the chunks say whether they hold: the entry
    // loads no group and the landing page only `common`, no open page loads the reader's, and no
    // group loads itself back through another chunk (chunks that import each other can run a
    // module before one it needs, the page then failing to draw).
    generateBundle(_, bundle) {
      const chunks = Object.values(bundle).flatMap((c) => (c.type === 'chunk' ? [c] : []));
      const byFile = new Map(chunks.map((c) => [c.fileName, c]));
      type Chunk = (typeof chunks)[number];
      const loads = (chunk: Chunk, holds: (c: Chunk) => boolean, seen = new Set<string>()): boolean =>
        chunk.imports.some((file) => {
          const next = byFile.get(file);
          if (!next || seen.has(file)) return false;
          seen.add(file);
          return holds(next) || loads(next, holds, seen);
        });
      const of = (group: Set<string>) => (c: Chunk) => c.moduleIds.some((id) => group.has(id));
      const page = (path: string) => chunks.find((c) => c.facadeModuleId?.endsWith(path));
      const both = new Set([...reader, ...shared]);
      const all = new Set([...both, ...common]);
      for (const chunk of chunks.filter((c) => c.isEntry)) {
        if (loads(chunk, of(all))) this.error(`signed-in-chunks: ${chunk.fileName} would load a group`);
      }
      const front = page(landing);
      if (front && loads(front, of(both))) this.error(`signed-in-chunks: ${front.fileName} would load the signed-in chunks`);
      for (const chunk of open.map(page)) {
        if (chunk && loads(chunk, of(reader))) this.error(`signed-in-chunks: ${chunk.fileName} would load the reader's chunk`);
      }
      for (const chunk of chunks.filter(of(all))) {
        if (loads(chunk, (c) => c === chunk)) this.error(`signed-in-chunks: ${chunk.fileName} imports itself through other chunks`);
      }
    },
  };
  return { plugin, reader: (id) => reader.has(id), shared: (id) => shared.has(id), common: (id) => common.has(id) };
}
