/**
 * Rewrites import specifiers across the repository (re-runnable: a second run changes nothing).
 *
 * 1. MOVES: a file that moved between core's rings (issue 34) is imported from its new place;
 *    a branch written before the move is fixed by running this again after merging it.
 * 2. Imports into a gated folder (scripts/import-graph.ts GATES: every core folder, and the
 *    layers with a door), from production code outside that folder (layers/, bin/, functions/,
 *    infra/), go through its door (`#core/scorers/likert.ts` → `#core/scorers/index.ts`) when
 *    the door exports every name the import takes; the rest are listed, for a hand fix (an
 *    `export` line in the door). Tests, benches and sim/ may reach inside.
 *
 * Usage: npx tsx scripts/imports-codemod.ts [--check] [--moves-only]
 *   --check: write nothing, exit 1 if a rewrite is due; --moves-only: step 1 alone
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { exportedNames, gateOf, mustUseIndex, resolveSpec, ROOT, sourceFiles } from './import-graph.ts';

/** Old path → new path, both from the repository root. */
export const MOVES: Record<string, string> = {
  'layers/core/report/charts.ts': 'layers/core/html/charts.ts',
  'layers/core/report/svg.ts': 'layers/core/html/svg.ts',
  'layers/core/report/escape.ts': 'layers/core/html/escape.ts',
  'layers/core/report/clip.ts': 'layers/core/html/clip.ts',
  'layers/core/report/likert-analyses.ts': 'layers/core/html/likert-analyses.ts',
  'layers/core/report/interval-bar.ts': 'layers/core/html/interval-bar.ts',
  'layers/core/report/task-view.ts': 'layers/core/scorers/task-view.ts',
  'layers/core/run/aggregate.ts': 'layers/core/report/aggregate.ts',
  'layers/core/run/columns.ts': 'layers/core/columns.ts',
  // Shared by tests and benches (neither imports the other): sim/.
  'test/support/browser.ts': 'sim/browser.ts',
  'test/support/gguf-writer.ts': 'sim/gguf-writer.ts',
  'test/support/synthetic-report.ts': 'sim/synthetic-report.ts',
  'bench/support/floor.ts': 'sim/floor.ts',
  'bench/support/measure-run.ts': 'sim/measure-run.ts',
  'layers/core/judging/postprocess.ts': 'layers/core/benchmarks/postprocess.ts',
  'layers/core/metrics/abricot-metrics.ts': 'layers/core/benchmarks/abricot-metrics.ts',
  'layers/core/metrics/code-switching-rows.ts': 'layers/core/benchmarks/code-switching-rows.ts',
  'layers/core/metrics/headline.ts': 'layers/core/benchmarks/headline.ts',
  'layers/core/metrics/compute.ts': 'layers/core/scorers/metrics-table.ts',
  'layers/core/metrics/compare.ts': 'layers/core/scorers/compare-runs.ts',
  // No two core folders hold files of the same name (issue 34): judging/ beside scorers/, prompts/ beside benchmarks/.
  'layers/core/judging/io-tests.ts': 'layers/core/judging/io-tests-judge.ts',
  'layers/core/judging/likert.ts': 'layers/core/judging/likert-judge.ts',
  'layers/core/judging/unit-tests.ts': 'layers/core/judging/unit-tests-judge.ts',
  'layers/core/prompts/abricot.ts': 'layers/core/prompts/abricot-prompts.ts',
  'layers/core/prompts/rocode.ts': 'layers/core/prompts/rocode-prompt.ts',
};

/** The specifier `file` should use for repository path `target`, in the style of `old` (alias or relative). */
function specFor(file: string, target: string, old: string): string {
  if (old.startsWith('#')) {
    const m = /^layers\/([a-z]+)\/(.*)$/.exec(target);
    if (m) return `#${m[1]}/${m[2]}`;
  }
  let rel = relative(dirname(join(ROOT, file)), join(ROOT, target));
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel;
}

const SPEC_RE = /((?:^|\n)\s*(?:import|export)(?:\s+type)?\s*([^'"]*?)\s*from\s+)(['"])([^'"]+)\3|(import\(\s*)(['"])([^'"]+)\6(\s*\))/g;

function rewrite(file: string, text: string, leftovers: string[], throughIndex: boolean): string {
  return text.replace(
    SPEC_RE,
    (all: string, head?: string, clause?: string, q?: string, spec?: string, dynHead?: string, dq?: string, dspec?: string, dynTail?: string) => {
      const old = (spec ?? dspec) as string;
      let next = old;
      let target = resolveSpec(file, old);
      if (target === undefined) return all;
      // A moved file's own relative imports still name its old neighbours: read them from its old place.
      const formerly = Object.entries(MOVES).find(([, now]) => now === file)?.[0];
      if (formerly !== undefined && old.startsWith('.') && !existsSync(join(ROOT, target))) {
        target = resolveSpec(formerly, old) as string;
        if (MOVES[target] === undefined) next = specFor(file, target, old);
      }
      const moved = MOVES[target];
      if (moved !== undefined) {
        target = moved;
        next = specFor(file, target, old);
      }
      const gate = gateOf(target);
      if (
        throughIndex &&
        mustUseIndex(file) &&
        gate !== undefined &&
        !file.startsWith(`${gate.folder}/`) &&
        !gate.doors.includes(target) &&
        clause !== undefined &&
        head
      ) {
        const door = gate.doors[0] as string;
        const names = importedNames(clause);
        const offered = exportedNames(door);
        if (names !== undefined && names.every((n) => offered.has(n))) next = specFor(file, door, old);
        else
          leftovers.push(
            `${file}: ${old} (${names === undefined ? 'namespace or side-effect import' : names.filter((n) => !offered.has(n)).join(', ')} not in ${door})`,
          );
      }
      if (next === old) return all;
      return head ? `${head}${q ?? ''}${next}${q ?? ''}` : `${dynHead ?? ''}${dq ?? ''}${next}${dq ?? ''}${dynTail ?? ''}`;
    },
  );
}

/** The names an import/export clause takes (`{ a, type B as C }` → a, B); undefined for `* as x`, defaults or bare imports. */
function importedNames(clause: string): string[] | undefined {
  const m = /^\{([\s\S]*)\}$/.exec(clause.trim());
  if (!m) return undefined;
  return (m[1] ?? '')
    .split(',')
    .map((s) =>
      (
        s
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)[0] ?? ''
      ).trim(),
    )
    .filter((s) => s !== '');
}

export function run(check: boolean, throughIndex = true): { changed: string[]; leftovers: string[] } {
  const leftovers: string[] = [];
  const changed: string[] = [];
  for (const file of sourceFiles()) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const next = rewrite(file, text, leftovers, throughIndex);
    if (next !== text) {
      changed.push(file);
      if (!check) writeFileSync(join(ROOT, file), next);
    }
  }
  return { changed, leftovers };
}

if (resolve(process.argv[1] ?? '') === resolve(import.meta.filename)) {
  const check = process.argv.includes('--check');
  const { changed, leftovers } = run(check, !process.argv.includes('--moves-only'));
  for (const f of changed) console.log(`${check ? 'would rewrite' : 'rewrote'} ${f}`);
  for (const l of leftovers) console.log(`left for a hand fix: ${l}`);
  if (check && changed.length > 0) process.exit(1);
}
