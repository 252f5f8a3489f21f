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

/** Folders whose `index.ts` is the only door other folders may use. */
export const INDEXED_FOLDERS: readonly string[] = CORE_RINGS.flatMap((r) => r.units).filter((u) => !u.endsWith('.ts'));
/** Whether `file` must import other core folders through their index (production code; tests and benches may reach inside to test a part). */
export function mustUseIndex(file: string): boolean {
  return /^(layers|bin|functions|infra)\//.test(file);
}

/** Deep imports into a core folder that has an `index.ts`, from production code outside that folder, as `file -> spec`. */
export function deepImports(edges: readonly Edge[]): string[] {
  return edges
    .filter((e) => mustUseIndex(e.from))
    .filter((e) => {
      const to = coreFolderOf(e.to);
      return to !== undefined && to !== coreFolderOf(e.from) && e.to !== `layers/core/${to}/index.ts` && existsSync(join(ROOT, `layers/core/${to}/index.ts`));
    })
    .map((e) => `${e.from} -> ${e.spec}`);
}

const FILE_UNITS: readonly string[] = CORE_RINGS.flatMap((r) => r.units).filter((u) => u.includes('/'));

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
