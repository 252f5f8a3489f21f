// DESIGN §3's claim as a test: a benchmark is one file plus one registry line. Every string
// that names a registered benchmark (its id, `<id>/…` or `<id>:…` keys, its Hub repository,
// its bundled suites) appears only in that benchmark's own file; the registry holds it by
// identifier. The count docs/development.md states is read and checked against what the scan finds.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnyBenchmark } from '#core/benchmarks/benchmark.ts';
import { BENCHMARKS } from '#core/benchmarks/registry.ts';
import { docSection } from '../../support/docs.ts';
import { literalsOf, sourceFiles, type SourceLiteral } from '../../support/source-literals.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const REGISTRY = 'layers/core/benchmarks/registry.ts';
const SCANNED = ['layers', 'functions', 'bin', 'infra'];
/** Names a benchmark may carry outside its file, each with its reason. Keep this short. */
const EXCEPTIONS: readonly { id: string; file: string; why: string }[] = [
  {
    id: 'rocode',
    file: 'layers/core/selftest/suite.ts',
    why: 'remote selftest reaches the Python, C and C++ images through the bundled RoCode suite, and sends their probes as RoCode rows (io tests)',
  },
  { id: 'kotlin-humaneval', file: 'layers/core/selftest/suite.ts', why: 'remote selftest reaches the Kotlin image through the bundled Kotlin HumanEval suite' },
  {
    id: 'mxeval',
    file: 'layers/core/selftest/suite.ts',
    why: "remote selftest sends the Kotlin, Java and JavaScript probes, every early exit and Java's and JavaScript's reference tasks as MXEval rows (unit tests)",
  },
];

const isBenchmark = (value: unknown): value is AnyBenchmark =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Partial<AnyBenchmark>).id === 'string' &&
  typeof (value as Partial<AnyBenchmark>).parseRow === 'function';

/** The module each registered benchmark is exported from, as the registry imports it. */
async function ownFiles(): Promise<Map<string, string>> {
  const text = readFileSync(join(ROOT, REGISTRY), 'utf8');
  const owners = new Map<string, string>();
  for (const m of text.matchAll(/^import \{([^}]+)\} from '\.\/([^']+)';$/gm)) {
    const file = `layers/core/benchmarks/${m[2]}`;
    const module = (await import(join(ROOT, file))) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      // The registry holds each benchmark wrapped by defineBenchmark: the module's export is the benchmark of the same id.
      const benchmark = BENCHMARKS.find((b) => isBenchmark(value) && value.id === b.id);
      if (benchmark) owners.set(benchmark.id, file);
    }
  }
  return owners;
}

/** Whether a literal names this benchmark (or something only it declares). */
function names(benchmark: AnyBenchmark, text: string): boolean {
  const id = benchmark.id;
  const own = [id, benchmark.dataset?.hub, ...(benchmark.bundled ?? []).flatMap((s) => [s.name, `sample/${s.name}`, s.file])];
  return own.includes(text) || text.startsWith(`${id}/`) || text.startsWith(`${id}:`);
}

/** Files (other than the registry) with a literal naming each benchmark. */
function registrations(literals: readonly SourceLiteral[]): Map<string, SourceLiteral[]> {
  const out = new Map<string, SourceLiteral[]>(BENCHMARKS.map((b) => [b.id, []]));
  for (const literal of literals) {
    for (const benchmark of BENCHMARKS) {
      const excused = EXCEPTIONS.some((e) => e.id === benchmark.id && e.file === literal.file);
      if (!excused && names(benchmark, literal.text)) out.get(benchmark.id)?.push(literal);
    }
  }
  return out;
}

/** The number docs/development.md's "Adding a benchmark" section states. */
function readmeCount(): number {
  const section = docSection('docs/development.md', '## Adding a benchmark');
  const m = /\*\*Files it takes: (\d+)\*\*/.exec(section);
  if (!m?.[1]) throw new Error('docs/development.md: "## Adding a benchmark" states no **Files it takes: N**');
  return Number(m[1]);
}

describe('adding a benchmark', () => {
  const files = sourceFiles(ROOT, SCANNED);
  const literals = files.flatMap((f) => literalsOf(ROOT, f));

  it('scans the sources of every layer, the functions, the CLI and the infrastructure', () => {
    expect(files).toContain(REGISTRY);
    expect(files.some((f) => f.startsWith('functions/'))).toBe(true);
    expect(files.some((f) => f.startsWith('infra/'))).toBe(true);
    expect(files.some((f) => f.startsWith('bin/'))).toBe(true);
  });

  it('finds each registered benchmark exported by exactly one file the registry imports', async () => {
    const owners = await ownFiles();
    expect([...owners.keys()].sort()).toEqual(BENCHMARKS.map((b) => b.id).sort());
  });

  it('names a benchmark in no file but its own: the registry holds it by identifier', async () => {
    const owners = await ownFiles();
    const outside = [...registrations(literals)].flatMap(([id, found]) =>
      found.filter((l) => l.file !== owners.get(id)).map((l) => `${l.file}:${l.line} names ${id} (${JSON.stringify(l.text)})`),
    );
    expect(outside).toEqual([]);
  });

  it('keeps every listed exception necessary: each still names its benchmark', () => {
    for (const e of EXCEPTIONS) {
      const benchmark = BENCHMARKS.find((b) => b.id === e.id);
      const inFile = literals.filter((l) => l.file === e.file);
      expect({ ...e, names: benchmark !== undefined && inFile.some((l) => names(benchmark, l.text)) }).toEqual({ ...e, names: true });
    }
  });

  it('takes as many files as docs/development.md says, for every benchmark', async () => {
    const owners = await ownFiles();
    const stated = readmeCount();
    for (const [id, found] of registrations(literals)) {
      const touched = new Set([...found.map((l) => l.file), owners.get(id)]);
      expect({ id, files: touched.size }).toEqual({ id, files: stated });
    }
  });

  it('catches a registration outside the benchmark file (the scan is not blind)', () => {
    const planted: SourceLiteral[] = [
      { file: 'layers/app/somewhere.ts', line: 1, text: 'rocode/cpp' },
      { file: 'infra/x.ts', line: 2, text: 'JetBrains/Kotlin_HumanEval' },
    ];
    const found = registrations(planted);
    expect(found.get('rocode')?.map((l) => l.file)).toEqual(['layers/app/somewhere.ts']);
    expect(found.get('kotlin-humaneval')?.map((l) => l.file)).toEqual(['infra/x.ts']);
  });
});
