/**
 * RoCode's code-switching metric: the share of declared identifiers that contain a
 * Romanian word, for the generated code and for the reference solutions side by side (as
 * the RoCode paper's figure compares them). Units for the bootstrap are programs.
 */
import { codeSwitchingShare } from '../benchmarks/code-switching.ts';
import type { MetricRow, RunRecord } from '../types.ts';
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

export function codeSwitchingRows(input: CodeSwitchingInput): MetricRow[] {
  const count = (code: string): ProgramCount => {
    const r = codeSwitchingShare([code], input.language, input.isRomanian);
    return { identifiers: r.identifiers, romanian: r.romanian };
  };
  const generated = input.records.filter((r) => r.verdict !== 'SE' && r.answer.trim() !== '').map((r) => count(r.answer));
  const reference = input.references.filter((c) => c.trim() !== '').map(count);
  const row = (metric: string, units: ProgramCount[]): MetricRow => {
    const value = share(units);
    const slice = `language=${input.language}`;
    if (value === null) {
      return { ...input.head, metric, slice, value: null, ci_low: null, ci_high: null, n: units.length, reason: units.length === 0 ? 'no programs' : 'no declared identifiers' };
    }
    const ci = bootstrapCI(units, share, { seed: input.seed, ...(input.iterations ? { iterations: input.iterations } : {}) });
    return { ...input.head, metric, slice, value, ci_low: ci.low, ci_high: ci.high, n: units.length, reason: null };
  };
  return [row('code_switching', generated), row('code_switching_reference', reference)];
}
