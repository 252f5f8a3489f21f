/**
 * The repository's import graph, read from the source text (no compiler): who imports whom, and
 * core's rings — declared here once, enforced by test/unit/architecture.test.ts, printed into
 * docs/development.md by scripts/layout-doc.ts.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');

/**
 * Core's rings, innermost first: a unit (a folder of layers/core, or a file at its top) imports
 * only units of its own ring or an inner one, and no two units import each other in a cycle.
 * Each entry says why its units sit where they do.
 */
export const CORE_RINGS: readonly { ring: string; units: readonly string[]; why: string }[] = [
  {
    ring: 'types and errors',
    units: ['types.ts', 'columns.ts', 'errors.ts', 'backoff.ts'],
    why: 'the vocabulary every file shares, the records and metrics tables it is stored as (columns.ts), its errors; backoff.ts is a pure retry schedule that imports nothing',
  },
  {
    ring: 'metrics and languages',
    units: ['metrics', 'languages', 'models', 'html', 'ports.ts'],
    why: 'estimators, language specs, the model port (a prompt, a completion), HTML/SVG building blocks, and the I/O ports: each reads only the vocabulary',
  },
  {
    ring: 'prompts and benchmarks',
    units: ['prompts', 'benchmarks', 'selftest'],
    why: "a benchmark's rows, prompts, metrics and headline; the self-test is a suite of hand-made rows like a benchmark's",
  },
  {
    ring: 'judging',
    units: ['judging', 'agreement'],
    why: 'how an answer is judged (tests run, a Likert answer read); agreement measures a judge against reference verdicts',
  },
  { ring: 'scorers', units: ['scorers'], why: 'the registry of scoring kinds: a benchmark row judged, its metrics planned and aggregated, its task view' },
  { ring: 'run', units: ['run'], why: 'a run: spec, plan, engine, ledger, manifest' },
  { ring: 'report', units: ['report'], why: "a run's results read back: aggregation into metrics and the HTML report, leaderboards, comparisons" },
  {
    ring: 'driving a run',
    units: ['run/orchestrate.ts', 'run/run-ports.ts'],
    why: 'plan → pipeline → aggregate → report, and the ports a driver fills: they call the report, so they sit outside it (files of run/ while its lifecycle is being rewritten)',
  },
];

/** Core's folders: each one's `index.ts` is the door other folders import it through. */
export const INDEXED_FOLDERS: readonly string[] = CORE_RINGS.flatMap((r) => r.units).filter((u) => !u.endsWith('.ts'));

const FILE_UNITS: readonly string[] = CORE_RINGS.flatMap((r) => r.units).filter((u) => u.includes('/'));

/**
 * A folder that other code enters only through its doors: an import of one of its files from
 * production code outside it (see {@link mustUseIndex}) must name a door, so what a folder
 * offers its neighbours is written in one place and the rest can change without them.
 */
export interface Gate {
  /** Repository-relative folder, no trailing slash. */
  folder: string;
  /** Repository-relative files others may import; the first is the one the codemod rewrites imports to. */
  doors: readonly string[];
}

/**
 * Core's folders: the door is `index.ts`; a file of a folder that is a ring unit of its own
 * (`run/orchestrate.ts`, `run/run-ports.ts`, an outer ring than the rest of run/) is its own
 * door, since the index of an inner ring may not re-export it.
 */
export const CORE_GATES: readonly Gate[] = INDEXED_FOLDERS.map((folder) => ({
  folder: `layers/core/${folder}`,
  doors: [`layers/core/${folder}/index.ts`, ...FILE_UNITS.filter((u) => u.startsWith(`${folder}/`)).map((u) => `layers/core/${u}`)],
}));

/**
 * The layers outside core that have a door, and what their doors are. Layers not listed
 * (layers/app/*, layers/images) have none; docs/development.md says why.
 */
export const LAYER_GATES: readonly Gate[] = [
  // lambda-account.ts loads the Lambda SDK with a dynamic import (the CLI's start loads no SDK):
  // behind the index, that import would put the whole Lambda client in every function using the index (+22 KB in execute).
  { folder: 'layers/aws', doors: ['layers/aws/index.ts', 'layers/aws/lambda-account.ts'] },
  { folder: 'layers/local', doors: ['layers/local/index.ts'] },
  // The batch APIs have their own door (batch/registry.ts): behind the index they put every
  // batch client in every function that prices a model (+10 KB in watchdog); and
  // batch/bedrock-batch.ts is loaded lazily (a dynamic import), so only a Bedrock batch loads
  // the Bedrock control-plane client.
  { folder: 'layers/providers', doors: ['layers/providers/index.ts', 'layers/providers/batch/registry.ts', 'layers/providers/batch/bedrock-batch.ts'] },
  { folder: 'layers/sources', doors: ['layers/sources/index.ts'] },
  // index.ts is the executor, which its users load lazily (a dynamic import: the CLI's start and
  // a judge's cold start load none of it). The other doors are small modules their users load
  // without it: isolation.ts (what a host isolates: the CLI's trust checks, the judge's root
  // check), compile-cache-gc.ts (cache sizes for `polyeval cleanup`), integrity.ts (leftover
  // processes: the judge and the runner), and for the image build's prebuild entry
  // languages/index.ts and supervisor.ts.
  {
    folder: 'layers/sandbox',
    doors: [
      'layers/sandbox/index.ts',
      'layers/sandbox/isolation.ts',
      'layers/sandbox/compile-cache-gc.ts',
      'layers/sandbox/integrity.ts',
      'layers/sandbox/languages/index.ts',
      'layers/sandbox/supervisor.ts',
    ],
  },
];

/**
 * Folders whose files do nothing when imported but declare (no top-level call that matters, no
 * `import './x'` for an effect): package.json's `sideEffects` lists every other source folder,
 * so esbuild drops a module of these that a bundle never uses, and a door re-exporting its
 * whole folder drags nothing into a bundle that uses one name of it. Not providers/ (batch/
 * imports the registry first for its evaluation order), nor the entry points' folders.
 */
export const SIDE_EFFECT_FREE: readonly string[] = ['layers/core', 'layers/aws'];

/** Every gated folder, core's and the other layers'. */
export const GATES: readonly Gate[] = [...CORE_GATES, ...LAYER_GATES];

/** The innermost gated folder holding `path`, if any. */
export function gateOf(path: string, gates: readonly Gate[] = GATES): Gate | undefined {
  return gates.filter((g) => path.startsWith(`${g.folder}/`)).sort((a, b) => b.folder.length - a.folder.length)[0];
}

/** Whether `file` must import gated folders through their doors (production code; tests, benches and sim/ may reach inside to test a part). */
export function mustUseIndex(file: string): boolean {
  return /^(layers|bin|functions|infra)\//.test(file);
}

/** Imports past a door: production code importing a gated folder's file that is not one of its doors, from outside that folder, as `file -> spec`. */
export function deepImports(edges: readonly Edge[], gates: readonly Gate[] = GATES): string[] {
  return edges
    .filter((e) => mustUseIndex(e.from))
    .filter((e) => {
      const gate = gateOf(e.to, gates);
      return gate !== undefined && !e.from.startsWith(`${gate.folder}/`) && !gate.doors.includes(e.to);
    })
    .map((e) => `${e.from} -> ${e.spec}`);
}

const SOURCE_DIRS = ['layers', 'bin', 'functions', 'infra', 'test', 'bench', 'sim', 'scripts'];

/** Every TypeScript source below the given top-level folders, repository-relative. */
export function sourceFiles(dirs: readonly string[] = SOURCE_DIRS): string[] {
  const walk = (dir: string): string[] =>
    existsSync(join(ROOT, dir))
      ? readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
          const path = `${dir}/${e.name}`;
          if (e.name === 'node_modules' || e.name === 'bundle' || e.name === 'cdk.out') return [];
          return e.isDirectory() ? walk(path) : /\.(ts|mts)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
        })
      : [];
  return dirs.flatMap(walk);
}

export interface Import {
  spec: string;
  /** `import type` / `export type`: erased at run time, still a dependency. */
  typeOnly: boolean;
}

const IMPORT_RE = /(?:^|\n)\s*(?:import|export)(\s+type)?[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

/** The specifiers a file imports or re-exports from (static, dynamic, and side-effect-only `import 'x'`). */
export function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(IMPORT_RE)].map((m) => ({ spec: (m[2] ?? m[3] ?? m[4]) as string, typeOnly: m[1] !== undefined }));
}

/** The repository path a specifier names (undefined for a package). */
export function resolveSpec(file: string, spec: string): string | undefined {
  if (spec.startsWith('.')) return relative(ROOT, resolve(ROOT, file, '..', spec));
  const alias = /^#([a-z]+)\/(.*)$/.exec(spec);
  return alias ? `layers/${alias[1]}/${alias[2]}` : undefined;
}

/** The core folder a path lies in (`layers/core/run/engine.ts` → `run`); undefined outside a core folder. */
export function coreFolderOf(path: string): string | undefined {
  const m = /^layers\/core\/([^/]+)\/.+/.exec(path);
  return m ? m[1] : undefined;
}

/** The ring unit of a core path: its folder, or the file name for a file at core's top. */
export function coreUnitOf(path: string): string | undefined {
  const own = FILE_UNITS.find((u) => path === `layers/core/${u}`);
  if (own !== undefined) return own;
  const m = /^layers\/core\/([^/]+?)(\/.+)?$/.exec(path);
  return m ? m[1] : undefined;
}

/** The index of `unit`'s ring in {@link CORE_RINGS} (-1 when no ring names it). */
export function ringOf(unit: string): number {
  return CORE_RINGS.findIndex((r) => r.units.includes(unit));
}

/** The names a module exports (declarations, `export { a, b as c }`, and re-exports followed one level through `export *`). */
export function exportedNames(file: string, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  if (seen.has(file) || !existsSync(join(ROOT, file))) return out;
  seen.add(file);
  const text = readFileSync(join(ROOT, file), 'utf8');
  for (const m of text.matchAll(
    /export\s+(?:declare\s+)?(?:async\s+)?(?:const|let|function\*?|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/g,
  ))
    out.add(m[1] as string);
  for (const m of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g))
    for (const part of (m[1] as string).split(',')) {
      const name = part
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()
        ?.trim();
      if (name) out.add(name);
    }
  for (const m of text.matchAll(/export\s+\*\s+from\s+['"]([^'"]+)['"]/g)) {
    const target = resolveSpec(file, m[1] as string);
    if (target) for (const n of exportedNames(target, seen)) out.add(n);
  }
  return out;
}

export interface Edge {
  from: string;
  to: string;
  spec: string;
  typeOnly: boolean;
}

/** Every import edge between files of `dirs` (targets resolved to repository paths). */
export function importEdges(dirs?: readonly string[]): Edge[] {
  return sourceFiles(dirs).flatMap((from) =>
    importsOf(from).flatMap(({ spec, typeOnly }) => {
      const to = resolveSpec(from, spec);
      return to === undefined ? [] : [{ from, to, spec, typeOnly }];
    }),
  );
}

/** Strongly connected components of more than one node (Tarjan), each sorted: the cycles of a graph. */
export function cycles(nodes: Iterable<string>, next: (node: string) => Iterable<string>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return out;
}
