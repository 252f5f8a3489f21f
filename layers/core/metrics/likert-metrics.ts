/**
 * Likert metrics (DESIGN §6, ABRICOT) over per-item groups of records: Pearson and Spearman
 * against the discretised gold, Pearson against the continuous human mean, exact-match
 * accuracy and the parse-failure rate. An unparseable answer (predicted null) is wrong for
 * accuracy and left out of the correlations, whose n is the number of pairs used.
 */
import type { RunRecord } from '../types.ts';
import { pearson, spearman } from './correlation.ts';
import { exactMatch } from './exact-match.ts';
import { absent, present, type Counted, type Measured, type Ratio } from './measured.ts';

/** One answer to a likert item. */
export interface LikertAnswer {
  predicted: number | null;
  gold: number | null;
  goldMean: number | null;
}

/** One item's scored answers (several when n > 1); SE records are only counted. */
export interface LikertUnit {
  taskId: string;
  answers: LikertAnswer[];
  se: number;
}

/** Summarises one item's records into a {@link LikertUnit}. */
export function summariseLikertItem(taskId: string, records: readonly RunRecord[]): LikertUnit {
  const unit: LikertUnit = { taskId, answers: [], se: 0 };
  for (const r of records) {
    if (r.verdict === 'SE') unit.se++;
    else unit.answers.push({ predicted: r.predicted, gold: r.gold, goldMean: r.gold_mean });
  }
  return unit;
}

function answersOf(units: readonly LikertUnit[]): LikertAnswer[] {
  return units.flatMap((u) => u.answers);
}

type Against = 'gold' | 'goldMean';

function correlate(units: readonly LikertUnit[], against: Against, coefficient: (x: readonly number[], y: readonly number[]) => Measured): Counted {
  const x: number[] = [];
  const y: number[] = [];
  for (const a of answersOf(units)) {
    const target = a[against];
    if (a.predicted === null || target === null) continue;
    x.push(a.predicted);
    y.push(target);
  }
  return { ...coefficient(x, y), n: x.length };
}

/** Pearson's r of predicted against the discretised gold (1–5); n = pairs used. */
export function pearsonOfUnits(units: readonly LikertUnit[]): Counted {
  return correlate(units, 'gold', pearson);
}

/** Pearson's r of predicted against the continuous human mean; n = pairs used. */
export function pearsonMeanOfUnits(units: readonly LikertUnit[]): Counted {
  return correlate(units, 'goldMean', pearson);
}

/** Spearman's ρ of predicted against the discretised gold; n = pairs used. */
export function spearmanOfUnits(units: readonly LikertUnit[]): Counted {
  return correlate(units, 'gold', spearman);
}

/** Exact-match accuracy against the discretised gold (unparseable = wrong); n = answers with a gold. */
export function exactMatchOfUnits(units: readonly LikertUnit[]): Counted {
  const withGold = answersOf(units).filter((a) => a.gold !== null);
  const measured = exactMatch(
    withGold.map((a) => a.predicted),
    withGold.map((a) => a.gold as number),
  );
  return { ...measured, n: withGold.length };
}

/** Share of scored answers whose prediction could not be parsed; n = answers. */
export function parseFailureRateOfUnits(units: readonly LikertUnit[]): Counted {
  const answers = answersOf(units);
  if (answers.length === 0) return { ...absent('no scored answers'), n: 0 };
  const failed = answers.filter((a) => a.predicted === null).length;
  return { ...present(failed / answers.length), n: answers.length };
}

/** Share of all records that were harness faults (SE) and so excluded; n = items. */
export function likertSystemErrorRateOfUnits(units: readonly LikertUnit[]): Counted {
  let se = 0;
  let all = 0;
  for (const u of units) {
    se += u.se;
    all += u.se + u.answers.length;
  }
  return all === 0 ? { ...absent('no records'), n: 0 } : { ...present(se / all), n: units.length };
}

/** Exact-match accuracy's contribution of one item: correct answers over answers with a gold. */
export function exactMatchRatio(u: LikertUnit): Ratio {
  const withGold = u.answers.filter((a) => a.gold !== null);
  return [withGold.filter((a) => a.predicted !== null && a.predicted === a.gold).length, withGold.length];
}

/** Parse-failure rate's contribution of one item: unparseable answers over answers. */
export function parseFailureRatio(u: LikertUnit): Ratio {
  return [u.answers.filter((a) => a.predicted === null).length, u.answers.length];
}

/** System-error rate's contribution of one item: SE records over all its records. */
export function likertSystemErrorRatio(u: LikertUnit): Ratio {
  return [u.se, u.se + u.answers.length];
}
