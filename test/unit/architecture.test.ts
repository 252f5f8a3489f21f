/**
 * The dependency rule (DESIGN §3): layers/core is pure — no AWS SDK, CDK, middy, process
 * spawning, filesystem or network — and imports nothing outside layers/core. Inside core,
 * the rings of scripts/import-graph.ts's CORE_RINGS: a unit imports only its own ring or an
 * inner one, and no units import each other in a cycle.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentedCoreRings, renderCoreRings } from '../../scripts/layout-doc.ts';
import { CORE_RINGS, coreUnitOf, cycles, deepImports, importEdges, INDEXED_FOLDERS, ringOf, type Edge } from '../../scripts/import-graph.ts';

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

/**
 * Core folders without an `index.ts` yet: each one that gains one is imported through it from
 * then on (the codemod `npx tsx scripts/imports-codemod.ts` rewrites the imports), and leaves this list.
 */
const NO_INDEX_YET = ['benchmarks', 'html', 'judging', 'models', 'prompts', 'report', 'run', 'selftest'];

describe("a core folder's index.ts", () => {
  it('is the only door production code outside the folder uses (layers/, bin/, functions/, infra/)', () => {
    expect(deepImports(importEdges(['layers', 'bin', 'functions', 'infra']))).toEqual([]);
  });

  it('exists for every core folder but those still listed', () => {
    expect(INDEXED_FOLDERS.filter((f) => !existsSync(join(CORE, f, 'index.ts'))).sort()).toEqual(NO_INDEX_YET);
  });
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
});
