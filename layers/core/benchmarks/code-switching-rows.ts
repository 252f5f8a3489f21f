/**
 * RoCode's code-switching metrics: the share of declared identifiers that contain a
 * Romanian word — pooled (`code_switching`), for function names (`code_switching_functions`)
 * and for variable names (`code_switching_variables`) apart, as the RoCode paper's Figure 2
 * reports them — for the generated code, with the suffix `_reference` for the reference
 * solutions in the run's language, and with the suffix `_human` for the human baseline.
 *
 * The human baseline is the tasks' C and C++ solutions only (slice `language=c+cpp`): in
 * RoCode those are the students' submissions, while every Python solution is a machine
 * transpilation of one of them (gpt-3.5-turbo, paper §3.2), so `_reference` of a Python run
 * measures the transpiler, not people. The paper's figures (9% of function names, 14% of
 * variable names) are over human C/C++ solutions too. Each figure is also given per
 * difficulty (`…,difficulty=<d>`): the paper reports the human shares the same across them.
 * Units for the bootstrap are programs.
 */
import { codeSwitchingByKind } from './code-switching.ts';
import { codeSwitchingSection } from './code-switching-report.ts';
import type { ExtraMetrics } from './description.ts';
import { HarnessError } from '../errors.ts';
import type { IoTestsTask, MetricRow, RunRecord } from '../types.ts';
import { ROCODE_HUMAN_LANGUAGES } from '../prompts/index.ts';
import { bootstrapCI } from '../metrics/index.ts';

interface ProgramCount {
  identifiers: number;
  romanian: number;
}

function share(units: readonly ProgramCount[]): number | null {
  const ids = units.reduce((s, u) => s + u.identifiers, 0);
  return ids === 0 ? null : units.reduce((s, u) => s + u.romanian, 0) / ids;
}

export interface CodeSwitchingInput {
  records: readonly RunRecord[];
  /** Reference solutions of the run's tasks in the run's language. */
  references: readonly string[];
  language: string;
  isRomanian: (word: string) => boolean;
  head: Pick<MetricRow, 'run_id' | 'benchmark' | 'model'>;
  seed: number;
  iterations?: number;
}

type Kind = 'all' | 'functions' | 'variables';
const METRIC: Record<Kind, string> = { all: 'code_switching', functions: 'code_switching_functions', variables: 'code_switching_variables' };
const KINDS: readonly Kind[] = ['all', 'functions', 'variables'];

/** Counts a program's identifiers; a program seen before (samples repeat at low temperature) is scanned once. */
function counter(isRomanian: (word: string) => boolean) {
  const seen = new Map<string, Record<Kind, ProgramCount>>();
  return (code: string, language: string): Record<Kind, ProgramCount> => {
    const key = `${language}\u0000${code}`;
    const known = seen.get(key);
    if (known !== undefined) return known;
    const r = codeSwitchingByKind([code], language, isRomanian);
    const pick = (c: { identifiers: number; romanian: number }): ProgramCount => ({ identifiers: c.identifiers, romanian: c.romanian });
    const counted = { all: pick(r.all), functions: pick(r.functions), variables: pick(r.variables) };
    seen.set(key, counted);
    return counted;
  };
}

type RowInput = Pick<CodeSwitchingInput, 'head' | 'seed' | 'iterations'>;

const WHAT: Record<Kind, string> = { all: 'identifiers', functions: 'functions', variables: 'variables' };

/** One share row with its bootstrap interval; absent (with the reason) when nothing was declared. */
function shareRow(input: RowInput, metric: string, slice: string, units: readonly ProgramCount[], what: string): MetricRow {
  const value = share(units);
  if (value === null) {
    const reason = units.length === 0 ? 'no programs' : `no declared ${what}`;
    return { ...input.head, metric, slice, value: null, ci_low: null, ci_high: null, n: units.length, reason };
  }
  const ci = bootstrapCI(units, share, { seed: input.seed, ...(input.iterations ? { iterations: input.iterations } : {}) });
  return { ...input.head, metric, slice, value, ci_low: ci.low, ci_high: ci.high, n: units.length, reason: null };
}

/** The three rows (pooled, functions, variables) of one set of programs on one slice. */
function kindRows(input: RowInput, suffix: string, slice: string, units: readonly Record<Kind, ProgramCount>[]): MetricRow[] {
  return KINDS.map((k) =>
    shareRow(
      input,
      `${METRIC[k]}${suffix}`,
      slice,
      units.map((u) => u[k]),
      WHAT[k],
    ),
  );
}

/** A program with the language it is scanned in and the difficulty of its task. */
export interface HumanProgram {
  code: string;
  language: string;
  difficulty: string | null;
}

/**
 * The human baseline (`…_human`, slice `language=c+cpp` and per difficulty): every C and C++
 * solution of the evaluated tasks, each scanned in its own language.
 */
export function humanCodeSwitchingRows(input: RowInput & { programs: readonly HumanProgram[]; isRomanian: (word: string) => boolean }): MetricRow[] {
  const count = counter(input.isRomanian);
  const human = new Set<string>(ROCODE_HUMAN_LANGUAGES);
  const programs = input.programs.filter((p) => p.code.trim() !== '' && human.has(p.language));
  const slice = `language=${ROCODE_HUMAN_LANGUAGES.join('+')}`;
  const rows = kindRows(
    input,
    '_human',
    slice,
    programs.map((p) => count(p.code, p.language)),
  );
  for (const d of difficulties(programs.map((p) => p.difficulty))) {
    rows.push(
      ...kindRows(
        input,
        '_human',
        `${slice},difficulty=${d}`,
        programs.filter((p) => p.difficulty === d).map((p) => count(p.code, p.language)),
      ),
    );
  }
  return rows;
}

function difficulties(values: readonly (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((d): d is string => typeof d === 'string' && d !== ''))].sort();
}

export function codeSwitchingRows(input: CodeSwitchingInput): MetricRow[] {
  const count = counter(input.isRomanian);
  const generated = input.records.filter((r) => r.verdict !== 'SE' && r.answer.trim() !== '').map((r) => count(r.answer, input.language));
  const reference = input.references.filter((c) => c.trim() !== '').map((c) => count(c, input.language));
  const slice = `language=${input.language}`;
  return [...kindRows(input, '', slice, generated), ...kindRows(input, '_reference', slice, reference)];
}

/**
 * Code-switching as a benchmark's own metrics (RoCode): {@link codeSwitchingRows} for each
 * language the records were written in (a replay may mix them), beside the reference
 * solutions of the evaluated tasks in that language.
 */
export const CODE_SWITCHING_METRICS: ExtraMetrics<IoTestsTask> = {
  ids: KINDS.flatMap((k) => [METRIC[k], `${METRIC[k]}_reference`, `${METRIC[k]}_human`]),
  needs: ['romanian-lexicon'],
  compute: (input, resources) => {
    const lexicon = resources['romanian-lexicon'];
    if (!lexicon) throw new HarnessError('code-switching metrics need the Romanian lexicon, which was not loaded');
    const languages = [...new Set(input.records.map((r) => r.language).filter((l): l is string => l !== null))].sort();
    const isRomanian = (w: string) => lexicon.isRomanian(w);
    const count = counter(isRomanian);
    const generated = languages.flatMap((language) => {
      const records = input.records.filter((r) => r.language === language);
      const rows = codeSwitchingRows({
        records,
        references: input.tasks.map((t) => t.solutions[language] ?? ''),
        language,
        isRomanian,
        head: input.head,
        seed: input.seed,
        ...(input.iterations ? { iterations: input.iterations } : {}),
      });
      // Per difficulty, the generated programs (the paper reports the human shares alike across difficulties).
      for (const d of difficulties(records.map((r) => r.difficulty))) {
        const units = records.filter((r) => r.difficulty === d && r.verdict !== 'SE' && r.answer.trim() !== '').map((r) => count(r.answer, language));
        rows.push(...kindRows(input, '', `language=${language},difficulty=${d}`, units));
      }
      return rows;
    });
    const programs = input.tasks.flatMap((t) => (t.humanSolutions ?? humanOf(t)).map((p) => ({ ...p, difficulty: t.difficulty ?? null })));
    return [
      ...generated,
      ...humanCodeSwitchingRows({ programs, isRomanian, head: input.head, seed: input.seed, ...(input.iterations ? { iterations: input.iterations } : {}) }),
    ];
  },
  report: codeSwitchingSection,
};

/** A task's C and C++ solutions, when the row kept only one per language. */
function humanOf(task: IoTestsTask): { code: string; language: string }[] {
  return ROCODE_HUMAN_LANGUAGES.flatMap((language) => {
    const code = task.solutions[language];
    return code ? [{ code, language }] : [];
  });
}
