/**
 * DESIGN §3's promise for languages, as a test: a language is its own files — the core spec
 * `layers/core/languages/<id>.ts`, the runtime `layers/sandbox/languages/<id>.ts` (helpers
 * named `<id>-*` beside them are its own too) and its image's stage in
 * `layers/images/Dockerfile` — plus one line in each layer's registry. No other source file may name a language (a literal `'kotlin'`,
 * a `kotlin:` key), so nothing else needs an edit when one is added; the exceptions below
 * say why each one is not a registration. docs/development.md's "Adding a language" counts are
 * checked against the languages added the documented way.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXECUTOR_IMAGES, LANGUAGE_SPECS } from '#core/languages/index.ts';
import { LANGUAGE_RUNTIMES } from '#sandbox/languages/index.ts';
import { docSection } from '../support/docs.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const IDS = LANGUAGE_SPECS.map((s) => s.id);
const REGISTRIES = ['layers/core/languages/index.ts', 'layers/sandbox/languages/index.ts'];
/** Where a language is named that is not a registration, each with its reason. */
const EXCEPTIONS: Record<string, string> = {
  'layers/core/prompts/rocode-prompt.ts': "RoCode's protocol: the paper's languages and how its prompt names them",
  'layers/core/benchmarks/rocode.ts': "RoCode's own facts: its default language (the paper's Python 3), its suite's measured timings per language",
  'layers/core/benchmarks/mxeval.ts': "Kotlin HumanEval's own facts: its language, its suite's measured timing",
  'bin/cli/doctor-command.ts': 'the JVM binary `java` that doctor reports, not the language',
  'layers/core/selftest/hostile-programs.ts': "the self-test's hostile suite: escape probes written in each language",
  'layers/core/selftest/hostile-java-javascript.ts': "the self-test's hostile suite: escape probes written in Java and JavaScript",
  'layers/core/selftest/suite.ts': "the languages whose images the self-test reaches, and through which suite (RoCode's languages: RoCode rows)",
  'layers/core/selftest/unit-probes.ts':
    "the self-test's hostile suite: the languages whose io probes ride on MXEval rows, and how each one's program becomes a function",
  'layers/core/selftest/reference-rows.ts': "the self-test's hand-made Java and JavaScript reference rows (MXEval's `language` column)",
  'layers/app/cloud/selftest.ts': "the self-test's default language for a probe row",
  'layers/app/cloud/function-memory.ts': "the runner images' measured peaks (`npm run bench function-memory`), keyed by the image each was measured in",
};

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.name === 'node_modules' || e.name === 'bundle') return [];
    return e.isDirectory() ? sources(path) : /\.(ts|mjs)$/u.test(e.name) ? [path] : [];
  });
}

const ALL = ['layers', 'functions', 'bin', 'infra'].flatMap(sources);

/** Whether `file` (repository-relative) is one of language `id`'s own files. */
function ownedBy(file: string, id: string): boolean {
  const mine = (name: string): boolean => name === `${id}.ts` || name.startsWith(`${id}-`);
  const [top, layer, folder] = file.split('/');
  if (top !== 'layers') return false;
  if ((layer === 'core' || layer === 'sandbox') && folder === 'languages' && file.split('/').length === 4) return mine(basename(file));
  if (layer === 'sandbox' && folder !== undefined && folder.startsWith(`${id}-`)) return true;
  return false;
}

/** The image stages of layers/images/Dockerfile (`FROM base AS <id>`). */
function imageStages(): string[] {
  const text = readFileSync(join(ROOT, 'layers/images/Dockerfile'), 'utf8');
  return [...text.matchAll(/^FROM base AS ([a-z0-9-]+)$/gmu)].map((m) => m[1] ?? '');
}

const withoutComments = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//gu, '').replace(/(^|[^:'"`\\])\/\/[^\n]*/gu, '$1');

/** Language ids a file names: quoted literals and object keys (`'cpp'`, `kotlin:`), image references (`image: 'cpp'`) left out. */
function namedLanguages(file: string): { id: string; line: number }[] {
  const text = withoutComments(readFileSync(join(ROOT, file), 'utf8'));
  const found: { id: string; line: number }[] = [];
  // Keys of one letter (`{ n, c: 3 }`) are too common to be read as a language.
  for (const m of text.matchAll(/(?<!image:\s*)(['"`])([a-z+#-]+)\1|[{,]\s*([a-z]{2,})(?=\s*:)/gu)) {
    const id = m[2] ?? m[3] ?? '';
    if (IDS.includes(id)) found.push({ id, line: text.slice(0, m.index).split('\n').length });
  }
  return found;
}

/** Files outside a language's own that import one of its own files. */
function importersOf(id: string): string[] {
  return ALL.filter((file) => !ownedBy(file, id)).filter((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    return [...text.matchAll(/from\s+['"]([^'"]+)['"]/gu)].some((m) => {
      const spec = m[1] ?? '';
      const target = spec.startsWith('#')
        ? spec.replace(/^#(\w+)\//u, 'layers/$1/')
        : spec.startsWith('.')
          ? relative(ROOT, resolve(ROOT, file, '..', spec))
          : '';
      return target !== '' && ownedBy(target, id);
    });
  });
}

/** docs/development.md's "Adding a language" section. */
function readmeSection(): string {
  return docSection('docs/development.md', '## Adding a language');
}

describe('adding a language', () => {
  it('has a runtime for every spec and a spec for every runtime', () => {
    expect(LANGUAGE_RUNTIMES.map((r) => r.id).sort()).toEqual([...IDS].sort());
  });

  it.each(EXECUTOR_IMAGES.map((i) => i.id))('has a stage in layers/images/Dockerfile for the %s image the registry derives', (image) => {
    expect(imageStages()).toContain(image);
  });

  it('builds no image the registry does not name', () => {
    expect(imageStages().sort()).toEqual(EXECUTOR_IMAGES.map((i) => i.id).sort());
  });

  it('names no language outside its own files, the registries and the listed exceptions', () => {
    const strays = ALL.filter((file) => !(file in EXCEPTIONS) && !REGISTRIES.includes(file)).flatMap((file) =>
      namedLanguages(file)
        // A language's own files may name another (the C spec runs in the C++ image; the Kotlin server spawns `java`).
        .filter(() => !IDS.some((own) => ownedBy(file, own)))
        .map(({ id, line }) => `${file}:${line} names ${id}`),
    );
    expect(strays).toEqual([]);
  });

  it.each(IDS)('registers %s with one line in each registry and nowhere else', (id) => {
    expect(importersOf(id).sort()).toEqual([...REGISTRIES].sort());
  });

  it("matches docs/development.md's counts for the languages added the documented way (Java, JavaScript)", () => {
    const section = readmeSection();
    const files = Number(/\*\*(\d+) files of its own\*\*/u.exec(section)?.[1]);
    const lines = Number(/\*\*(\d+) registry lines\*\*/u.exec(section)?.[1]);
    expect(lines).toBe(REGISTRIES.length);
    expect(section).toContain('`FROM base AS <id>`');
    for (const id of ['java', 'javascript']) {
      const own = ALL.filter((file) => ownedBy(file, id));
      expect(new Set(own).size, `${id}: ${[...new Set(own)].join(', ')}`).toBe(files);
    }
  });
});
