/**
 * How often polyeval's per-sample verdicts agree with another harness's (`polyeval agree`).
 * A polyeval sample passes when its verdict is OK. Each reference line is paired with the
 * run's record of the same task and sample index; a line the run has no record for counts
 * as a disagreement (listed with verdict `missing`), so an incomplete run cannot look
 * faithful. Records the file does not mention are counted, not judged.
 */
import type { RunRecord, Verdict } from '../types.ts';
import type { ReferenceVerdict } from './reference-verdicts.ts';

/** Agreement within one slice (all, one language, one kind). */
export interface AgreementSlice {
  /** `all`, a language or a kind. */
  slice: string;
  samples: number;
  agree: number;
  /** agree / samples. */
  rate: number;
  /** Samples polyeval passed, and the other harness passed. */
  polyeval_passed: number;
  reference_passed: number;
}

/** One sample the two harnesses judge differently. */
export interface Disagreement {
  task_id: string;
  sample: number;
  language: string | null;
  kind: string | null;
  polyeval_verdict: Verdict | 'missing';
  polyeval_passed: boolean;
  reference_passed: boolean;
  /** polyeval's error line (compiler output head, exception, …). */
  error: string | null;
  /** The line in the reference file. */
  line: number;
}

export interface AgreementReport {
  overall: AgreementSlice;
  by_language: AgreementSlice[];
  /** Empty when the file has no `kind` column. */
  by_kind: AgreementSlice[];
  disagreements: Disagreement[];
  /** Reference lines with no record in the run (included in the disagreements). */
  missing: number;
  /** Records of the run the file does not mention. */
  unmatched: number;
}

interface Pair {
  ref: ReferenceVerdict;
  record: RunRecord | undefined;
  language: string;
}

function slice(name: string, pairs: readonly Pair[]): AgreementSlice {
  const passes = (p: Pair): boolean => p.record?.verdict === 'OK';
  const agree = pairs.filter((p) => p.record !== undefined && passes(p) === p.ref.passed).length;
  return {
    slice: name,
    samples: pairs.length,
    agree,
    rate: pairs.length === 0 ? 0 : agree / pairs.length,
    polyeval_passed: pairs.filter(passes).length,
    reference_passed: pairs.filter((p) => p.ref.passed).length,
  };
}

function groups(pairs: readonly Pair[], key: (p: Pair) => string | undefined): AgreementSlice[] {
  const by = new Map<string, Pair[]>();
  for (const p of pairs) {
    const k = key(p);
    if (k === undefined) continue;
    by.set(k, [...(by.get(k) ?? []), p]);
  }
  return [...by.keys()].sort().map((k) => slice(k, by.get(k) ?? []));
}

/**
 * Compares a run's records with reference verdicts numbered by parseReferenceVerdicts.
 * @example
 * const report = agreement(records, parseReferenceVerdicts(text, file));
 * if (report.overall.rate < 0.99) …
 */
export function agreement(records: readonly RunRecord[], refs: readonly ReferenceVerdict[]): AgreementReport {
  const byKey = new Map(records.map((r) => [`${r.task_id}\u0000${r.sample}`, r]));
  const used = new Set<string>();
  const pairs: Pair[] = refs.map((ref) => {
    const key = `${ref.taskId}\u0000${ref.sample ?? 0}`;
    const record = byKey.get(key);
    if (record) used.add(key);
    return { ref, record, language: record?.language ?? ref.language ?? 'unknown' };
  });
  const disagreements: Disagreement[] = pairs
    .filter((p) => p.record === undefined || (p.record.verdict === 'OK') !== p.ref.passed)
    .map((p) => ({
      task_id: p.ref.taskId,
      sample: p.ref.sample ?? 0,
      language: p.record?.language ?? p.ref.language ?? null,
      kind: p.ref.kind ?? null,
      polyeval_verdict: p.record?.verdict ?? 'missing',
      polyeval_passed: p.record?.verdict === 'OK',
      reference_passed: p.ref.passed,
      error: p.record ? p.record.error : 'no record of this sample in the run',
      line: p.ref.line,
    }));
  return {
    overall: slice('all', pairs),
    by_language: groups(pairs, (p) => p.language),
    by_kind: groups(pairs, (p) => p.ref.kind),
    disagreements,
    missing: pairs.filter((p) => p.record === undefined).length,
    unmatched: records.length - used.size,
  };
}
