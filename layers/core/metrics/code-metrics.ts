/**
 * Code metrics (DESIGN §6) over per-task groups of records: accuracy, strict accuracy,
 * pass@k, compile-error and system-error rates. `SE` samples are harness faults: they are
 * excluded from every model metric and only counted.
 *
 * Each task is first summarised into a {@link CodeUnit}, and every metric is a ratio of
 * per-task sums ({@link Ratio}), so a bootstrap resample costs one pass over plain numbers.
 */
import type { RunRecord } from '../types.ts';
import { absent, present, ratioOf, type Counted, type Ratio } from './measured.ts';
import { passAtK } from './pass-at-k.ts';

/** One task's samples, reduced to what the code metrics need. */
export interface CodeUnit {
  taskId: string;
  /** Samples scored (every verdict except SE). */
  samples: number;
  /** Samples passing every test (verdict OK). */
  ok: number;
  /** Samples that did not compile (verdict CE). */
  ce: number;
  /** Samples excluded as harness faults (verdict SE). */
  se: number;
  /** Best fraction of tests passed by one scored sample; null when no sample was scored. */
  bestFraction: number | null;
}

function fractionPassed(r: RunRecord): number {
  if (r.verdict === 'CE') return 0;
  if (r.tests_total > 0) return r.tests_passed / r.tests_total;
  // A task without tests passes exactly when the sample's verdict says so.
  return r.verdict === 'OK' ? 1 : 0;
}

/** Summarises one task's records into a {@link CodeUnit}. */
export function summariseCodeTask(taskId: string, records: readonly RunRecord[]): CodeUnit {
  const unit: CodeUnit = { taskId, samples: 0, ok: 0, ce: 0, se: 0, bestFraction: null };
  for (const r of records) {
    if (r.verdict === 'SE') {
      unit.se++;
      continue;
    }
    unit.samples++;
    if (r.verdict === 'OK') unit.ok++;
    if (r.verdict === 'CE') unit.ce++;
    unit.bestFraction = Math.max(unit.bestFraction ?? 0, fractionPassed(r));
  }
  return unit;
}

function noScored(units: readonly CodeUnit[]): string {
  if (units.length === 0) return 'no tasks';
  const se = units.reduce((s, u) => s + u.se, 0);
  return `no scored samples (${se} SE excluded)`;
}

// A ratio metric over units: n counts the units that contribute a denominator.
function fromRatio(units: readonly CodeUnit[], ratio: (u: CodeUnit) => Ratio, reason: () => string): Counted {
  const parts = units.map(ratio);
  const value = ratioOf(parts);
  const n = parts.filter(([, den]) => den > 0).length;
  return value === null ? { ...absent(reason()), n } : { ...present(value), n };
}

/** Accuracy's contribution of one task: its best sample's fraction of tests passed. */
export const accuracyRatio = (u: CodeUnit): Ratio => (u.samples > 0 ? [u.bestFraction ?? 0, 1] : [0, 0]);

/**
 * Strict accuracy's contribution of one task, as APPS's evaluation code computes it: 1 when
 * every one of its scored samples passes every test, else 0.
 *
 * hendrycks/apps, eval/test_one_solution.py `print_results` (commit 362aedc3): per problem the
 * results of all its generations form one array, and "Strict Accuracy (all test cases passed /
 * total problems)" is the mean over problems of `np.all(problem_results > 0)`: every test of
 * every generation. The RoCode paper (§4.1) defines strict accuracy as "the average number of
 * times a problem has passed all tests" and cites APPS. Pass@1 ≥ strict accuracy always; with one
 * sample per task the two are the same number, so strict accuracy is then left absent
 * ({@link strictAccuracyOfUnits}). docs/reproducing-papers.md says which reading fits which
 * relation of the paper's Table 4 (none fits all).
 */
export const strictAccuracyRatio = (u: CodeUnit): Ratio => (u.samples > 0 ? [u.ok === u.samples ? 1 : 0, 1] : [0, 0]);

/** Compile-error rate's contribution of one task: its CE samples over its scored samples. */
export const compileErrorRatio = (u: CodeUnit): Ratio => [u.ce, u.samples];

/** System-error rate's contribution of one task: its SE samples over all its samples. */
export const systemErrorRatio = (u: CodeUnit): Ratio => [u.se, u.se + u.samples];

/** pass@k's contribution of one task; none when it has fewer than k scored samples. */
export function passAtKRatio(k: number): (u: CodeUnit) => Ratio {
  return (u) => {
    const p = u.samples === 0 ? undefined : passAtK(u.samples, u.ok, k);
    return p === undefined ? [0, 0] : [p, 1];
  };
}

/** Mean over tasks of the best sample's fraction of tests passed; n = tasks. */
export function accuracyOfUnits(units: readonly CodeUnit[]): Counted {
  return fromRatio(units, accuracyRatio, () => noScored(units));
}

/**
 * Share of tasks every scored sample of which passes every test (APPS's strict accuracy, see
 * {@link strictAccuracyRatio}); n = tasks. Absent when no task has two scored samples: it
 * would be pass@1 under a second name.
 */
export function strictAccuracyOfUnits(units: readonly CodeUnit[]): Counted {
  if (units.some((u) => u.samples > 0) && units.every((u) => u.samples <= 1)) {
    return { ...absent('one scored sample per task: strict accuracy equals pass@1'), n: 0 };
  }
  return fromRatio(units, strictAccuracyRatio, () => noScored(units));
}

/** Share of scored samples that did not compile; n = tasks. */
export function compileErrorRateOfUnits(units: readonly CodeUnit[]): Counted {
  return fromRatio(units, compileErrorRatio, () => noScored(units));
}

/** Share of all samples that were harness faults (SE) and so excluded; n = tasks. */
export function systemErrorRateOfUnits(units: readonly CodeUnit[]): Counted {
  return fromRatio(units, systemErrorRatio, () => 'no samples');
}

/**
 * Mean over tasks of the unbiased pass@k. `nominalN` is the run's n: pass@k is absent when
 * it is below k. A task whose scored samples fall below k (SE exclusions) is left out; n = tasks used.
 */
export function passAtKOfUnits(units: readonly CodeUnit[], k: number, nominalN: number): Counted {
  if (nominalN < k) return { ...absent(`n=${nominalN} < k=${k}`), n: 0 };
  return fromRatio(units, passAtKRatio(k), () => (units.length === 0 ? 'no tasks' : `no task has ${k} scored samples`));
}
