/**
 * RoCode's code-switching metrics: the share of declared identifiers that contain a
 * Romanian word — pooled (`code_switching`), for function names (`code_switching_functions`)
 * and for variable names (`code_switching_variables`) apart, as the RoCode paper's Figure 2
 * reports them — for the generated code and, with the suffix `_reference`, for the reference
 * solutions side by side. Units for the bootstrap are programs.
 */
import { codeSwitchingByKind } from '../benchmarks/code-switching.ts';
import type { ExtraMetrics } from '../benchmarks/description.ts';
import { HarnessError } from '../errors.ts';
import type { IoTestsTask, MetricRow, RunRecord } from '../types.ts';
import { bootstrapCI } from './bootstrap.ts';

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

export function codeSwitchingRows(input: CodeSwitchingInput): MetricRow[] {
  const count = (code: string): Record<Kind, ProgramCount> => {
    const r = codeSwitchingByKind([code], input.language, input.isRomanian);
    const pick = (c: { identifiers: number; romanian: number }): ProgramCount => ({ identifiers: c.identifiers, romanian: c.romanian });
    return { all: pick(r.all), functions: pick(r.functions), variables: pick(r.variables) };
  };
  const generated = input.records.filter((r) => r.verdict !== 'SE' && r.answer.trim() !== '').map((r) => count(r.answer));
  const reference = input.references.filter((c) => c.trim() !== '').map(count);
  const row = (metric: string, units: ProgramCount[], what: string): MetricRow => {
    const value = share(units);
    const slice = `language=${input.language}`;
    if (value === null) {
      return { ...input.head, metric, slice, value: null, ci_low: null, ci_high: null, n: units.length, reason: units.length === 0 ? 'no programs' : `no declared ${what}` };
    }
    const ci = bootstrapCI(units, share, { seed: input.seed, ...(input.iterations ? { iterations: input.iterations } : {}) });
    return { ...input.head, metric, slice, value, ci_low: ci.low, ci_high: ci.high, n: units.length, reason: null };
  };
  const what: Record<Kind, string> = { all: 'identifiers', functions: 'functions', variables: 'variables' };
  return [
    ...KINDS.map((k) => row(METRIC[k], generated.map((u) => u[k]), what[k])),
    ...KINDS.map((k) => row(`${METRIC[k]}_reference`, reference.map((u) => u[k]), what[k])),
  ];
}

/**
 * Code-switching as a benchmark's own metrics (RoCode): {@link codeSwitchingRows} for each
 * language the records were written in (a replay may mix them), beside the reference
 * solutions of the evaluated tasks in that language.
 */
export const CODE_SWITCHING_METRICS: ExtraMetrics<IoTestsTask> = {
  ids: KINDS.flatMap((k) => [METRIC[k], `${METRIC[k]}_reference`]),
  needs: ['romanian-lexicon'],
  compute: (input, resources) => {
    const lexicon = resources['romanian-lexicon'];
    if (!lexicon) throw new HarnessError('code-switching metrics need the Romanian lexicon, which was not loaded');
    const languages = [...new Set(input.records.map((r) => r.language).filter((l): l is string => l !== null))].sort();
    return languages.flatMap((language) =>
      codeSwitchingRows({
        records: input.records.filter((r) => r.language === language),
        references: input.tasks.map((t) => t.solutions[language] ?? ''),
        language,
        isRomanian: (w) => lexicon.isRomanian(w),
        head: input.head,
        seed: input.seed,
      }),
    );
  },
};
