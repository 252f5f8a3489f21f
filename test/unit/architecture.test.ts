/**
 * The dependency rule (DESIGN §3): layers/core is pure — no AWS SDK, CDK, middy, process
 * spawning, filesystem or network — and imports nothing outside layers/core. Inside core,
 * the rings of scripts/import-graph.ts's CORE_RINGS: a unit imports only its own ring or an
 * inner one, and no units import each other in a cycle.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { documentedCoreRings, documentedDoors, renderCoreRings, renderDoors } from '../../scripts/layout-doc.ts';
import {
  CORE_GATES,
  CORE_RINGS,
  coreUnitOf,
  cycles,
  deepImports,
  GATES,
  importEdges,
  ringOf,
  SIDE_EFFECT_FREE,
  type Edge,
  type Gate,
} from '../../scripts/import-graph.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CORE = join(ROOT, 'layers', 'core');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => (m[1] ?? m[2]) as string,
  );
}

const FORBIDDEN = [
  /^node:(fs|child_process|net|http|https|dgram|worker_threads)/,
  /^(fs|child_process|net|http|https)$/,
  /^@aws-sdk\//,
  /^aws-cdk-lib/,
  /^@middy\//,
  /^@aws-lambda-powertools\//,
  /^@duckdb\//,
];

describe('layers/core', () => {
  const coreFiles = files(CORE);

  it('has files to check', () => {
    expect(coreFiles.length).toBeGreaterThan(20);
  });

  it.each(coreFiles.map((f) => [relative(ROOT, f), f]))('%s imports no I/O, cloud or process module', (_name, file) => {
    for (const spec of imports(file)) for (const rule of FORBIDDEN) expect(spec, `${file} imports ${spec}`).not.toMatch(rule);
  });

  it.each(coreFiles.map((f) => [relative(ROOT, f), f]))('%s imports nothing outside layers/core', (_name, file) => {
    for (const spec of imports(file)) {
      if (spec.startsWith('.')) expect(resolve(file, '..', spec).startsWith(CORE), `${file} imports ${spec}`).toBe(true);
      else if (spec.startsWith('#')) expect(spec, `${file} imports ${spec}`).toMatch(/^#core\//);
    }
  });
});

/** Edges between two different units of core (type-only imports included: a type is a dependency too). */
function coreEdges(): (Edge & { fromUnit: string; toUnit: string })[] {
  return importEdges(['layers/core']).flatMap((e) => {
    const fromUnit = coreUnitOf(e.from);
    const toUnit = coreUnitOf(e.to);
    return fromUnit === undefined || toUnit === undefined || fromUnit === toUnit ? [] : [{ ...e, fromUnit, toUnit }];
  });
}

/** Imports from an inner ring to an outer one, as `file -> target (ring -> ring)`. */
export function ringViolations(edges = coreEdges()): string[] {
  return edges
    .filter((e) => ringOf(e.toUnit) > ringOf(e.fromUnit))
    .map((e) => `${e.from} -> ${e.to} (${CORE_RINGS[ringOf(e.fromUnit)]?.ring} -> ${CORE_RINGS[ringOf(e.toUnit)]?.ring})`);
}

describe("core's rings", () => {
  const edges = coreEdges();

  it('places every folder and top-level file of layers/core in exactly one ring', () => {
    const units = new Set(files(CORE).map((f) => coreUnitOf(relative(ROOT, f)) as string));
    const unringed = [...units].filter((u) => ringOf(u) < 0);
    expect(unringed).toEqual([]);
    const declared = CORE_RINGS.flatMap((r) => r.units);
    expect(new Set(declared).size, 'a unit named in two rings').toBe(declared.length);
    expect(
      declared.filter((u) => !u.includes('/') && !units.has(u)),
      'a ring names a unit that is gone',
    ).toEqual([]);
  });

  it('has no import from an inner ring to an outer one', () => {
    expect(edges.length).toBeGreaterThan(100);
    expect(ringViolations(edges)).toEqual([]);
  });

  it('has no import cycle between its units', () => {
    const next = new Map<string, Set<string>>();
    for (const e of edges) (next.get(e.fromUnit) ?? next.set(e.fromUnit, new Set()).get(e.fromUnit))?.add(e.toUnit);
    expect(cycles(next.keys(), (u) => next.get(u) ?? [])).toEqual([]);
  });

  // Issue 34: `scoring/` and `scorers/` once held io-tests.ts, likert.ts and unit-tests.ts each, and a
  // newcomer opened the wrong one. A file's name says which ring it is in; shared names stay for
  // the registries' own entry points (index.ts) and the per-kind declarations languages/run/benchmarks
  // each call spec.ts, kotlin.ts (a language and its prompt).
  it('has no two folders holding files of the same name (but index.ts and the documented pairs)', () => {
    const allowed = new Set(['index.ts', 'spec.ts', 'kotlin.ts']);
    const folders = new Map<string, string[]>();
    for (const file of files(CORE)) {
      const parts = relative(CORE, file).split('/');
      if (parts.length < 2) continue;
      const name = parts.at(-1) as string;
      if (!allowed.has(name)) folders.set(name, [...(folders.get(name) ?? []), parts[0] as string]);
    }
    expect([...folders].filter(([, where]) => where.length > 1)).toEqual([]);
  });
});

describe('doors: a gated folder is entered only through its doors (scripts/import-graph.ts GATES)', () => {
  it('production code outside a gated folder imports only its doors (layers/, bin/, functions/, infra/)', () => {
    expect(deepImports(importEdges(['layers', 'bin', 'functions', 'infra']))).toEqual([]);
  });

  it("every core folder is gated, and every gate's doors exist", () => {
    expect(CORE_GATES.map((g) => g.folder).sort()).toEqual(
      readdirSync(CORE, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => `layers/core/${e.name}`)
        .sort(),
    );
    expect(GATES.flatMap((g) => g.doors).filter((door) => !existsSync(join(ROOT, door)))).toEqual([]);
  });

  // The rule itself, on a made-up graph: what a deep import looks like from each side of a door.
  it('names an import past a door, and only that', () => {
    const gates: Gate[] = [
      { folder: 'layers/core/run', doors: ['layers/core/run/index.ts', 'layers/core/run/orchestrate.ts'] },
      { folder: 'layers/aws', doors: ['layers/aws/index.ts'] },
    ];
    const edge = (from: string, to: string): Edge => ({ from, to, spec: to, typeOnly: false });
    const edges = [
      edge('layers/core/report/aggregate.ts', 'layers/core/run/engine.ts'), // deep, from another core folder
      edge('bin/cli/show.ts', 'layers/core/run/keys.ts'), // deep, from the CLI
      edge('functions/plan/deps.ts', 'layers/aws/sqs-visibility.ts'), // deep, into another layer
      edge('layers/app/cloud/stages.ts', 'layers/core/run/index.ts'), // the door
      edge('layers/app/local/run.ts', 'layers/core/run/orchestrate.ts'), // a second door
      edge('layers/core/run/engine.ts', 'layers/core/run/keys.ts'), // inside the folder
      edge('layers/aws/index.ts', 'layers/aws/sqs-visibility.ts'), // inside the layer
      edge('test/unit/keys.test.ts', 'layers/core/run/keys.ts'), // a test may reach inside
      edge('bin/cli/show.ts', 'layers/app/local/home.ts'), // no gate there
    ];
    expect(deepImports(edges, gates)).toEqual([
      'layers/core/report/aggregate.ts -> layers/core/run/engine.ts',
      'bin/cli/show.ts -> layers/core/run/keys.ts',
      'functions/plan/deps.ts -> layers/aws/sqs-visibility.ts',
    ]);
  });
});

describe("package.json's sideEffects", () => {
  // A door re-exports its whole folder. esbuild (the CLI bundle, every Lambda and image) drops a
  // module whose exports a bundle never uses only when package.json says the file has no side
  // effects; without that, importing one name through a door dragged its neighbours' top-level
  // code into every bundle (the untrusted runner grew 66 KB). SIDE_EFFECT_FREE's folders are the
  // ones not listed; every other folder keeps its side effects (providers/batch relies on one).
  const listed = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { sideEffects: string[] }).sideEffects;

  it('lists every source folder and layer but the side-effect-free ones', () => {
    const layers = readdirSync(join(ROOT, 'layers'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `layers/${e.name}`);
    const expected = [...['bin', 'functions', 'infra', 'scripts', 'sim', 'test', 'bench'], ...layers]
      .filter((d) => !SIDE_EFFECT_FREE.includes(d))
      .map((d) => `./${d}/**`);
    expect([...listed].sort()).toEqual(expected.sort());
  });

  it.each(SIDE_EFFECT_FREE.flatMap((d) => files(join(ROOT, d))).map((f) => [relative(ROOT, f), f]))(
    '%s imports no module for its side effects alone',
    (_name, file) => {
      expect(readFileSync(file, 'utf8')).not.toMatch(/(?:^|\n)\s*import\s+['"]/);
    },
  );

  // What esbuild drops with a module nobody takes a name from is its top-level code: a
  // registration (`registerBenchmark(x)`), a listener, a polyfill would vanish from every bundle
  // while the tests, run from source, still pass. Declarations (const x = f(…) included) stay.
  it.each(SIDE_EFFECT_FREE.flatMap((d) => files(join(ROOT, d))).map((f) => [relative(ROOT, f), f]))(
    '%s runs no top-level statement for its effect',
    (_name, file) => {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const effects = source.statements.filter(
        (s) =>
          ts.isExpressionStatement(s) ||
          ts.isIfStatement(s) ||
          ts.isIterationStatement(s, false) ||
          ts.isTryStatement(s) ||
          ts.isBlock(s) ||
          ts.isSwitchStatement(s) ||
          ts.isThrowStatement(s) ||
          ts.isLabeledStatement(s) ||
          (ts.isClassDeclaration(s) && s.members.some(ts.isClassStaticBlockDeclaration)),
      );
      expect(effects.map((s) => s.getText(source).split('\n')[0])).toEqual([]);
    },
  );
});

describe('test/, bench/ and sim/', () => {
  // What tests and benches share (the cloud simulator, a headless browser, synthetic runs, GGUF
  // fixtures, the measured floor) lives in sim/, so neither reaches into the other.
  const crossing = (from: string, to: RegExp): string[] =>
    importEdges([from])
      .filter((e) => to.test(e.to))
      .map((e) => `${e.from} -> ${e.spec}`);

  it('test/ imports nothing of bench/', () => {
    expect(crossing('test', /^bench\//)).toEqual([]);
  });

  it('bench/ imports nothing of test/', () => {
    expect(crossing('bench', /^test\//)).toEqual([]);
  });

  it('sim/ imports neither', () => {
    expect(crossing('sim', /^(test|bench)\//)).toEqual([]);
  });
});

describe("docs/development.md's core rings", () => {
  // Prettier pads a Markdown table's cells: compare the tables' words, not their spacing.
  const words = (table: string): string =>
    table
      .replace(/\s+/g, ' ')
      .replace(/ ?\| ?-+ ?/g, '|-')
      .trim();

  it('are the rings and imports the graph has (regenerate: npx tsx scripts/layout-doc.ts --write && npx prettier --write docs/development.md)', () => {
    expect(words(documentedCoreRings())).toBe(words(renderCoreRings()));
  });

  it('are followed by the doors GATES declares (same command)', () => {
    expect(words(documentedDoors())).toBe(words(renderDoors()));
  });
});
