/**
 * The `likert` scorer: the prediction is the choice with the highest log-likelihood
 * (likelihood mode), the choice with the highest next-token log-probability (next-token
 * mode, "1" and " 1" merged by the provider), or a strictly parsed digit (digit-parse mode,
 * for providers without log-probabilities). OK when the prediction equals the discretised
 * gold, WA otherwise.
 */
import type { LikertMode } from '../models/index.ts';
import type { LikertTask, ScoreOutcome } from '../types.ts';

export type LikertEvidence =
  | {
      mode: Exclude<LikertMode, 'digit-parse'>;
      logprobs: number[];
      choices: readonly string[];
      /** next-token: indexes of choices missing from the top-k, scored at `floor`. */
      floored?: number[];
      floor?: number;
    }
  | { mode: 'digit-parse'; text: string };

/**
 * Strict parse of a digit answer: exactly one digit 1–5, optionally surrounded by
 * whitespace or punctuation (and after ABRICOT's "valore:"). Anything else is unparseable
 * (null), counted as wrong.
 * @example parseLikertAnswer(' 4.') // 4
 */
export function parseLikertAnswer(text: string): number | null {
  const m = /^\s*(?:valore\s*:?\s*)?\**([1-5])\**\s*[.!)]?\s*$/i.exec(text);
  return m?.[1] ? Number(m[1]) : null;
}

/**
 * Scores one likert sample.
 *
 * @example
 * scoreLikert(task, { mode: 'likelihood', logprobs: [-3, -2, -0.1, -4, -5], choices: ['1', '2', '3', '4', '5'] }).predicted; // 3
 */
export function scoreLikert(task: LikertTask, evidence: LikertEvidence): ScoreOutcome {
  let predicted: number | null;
  let error: string | undefined;
  if (evidence.mode === 'digit-parse') {
    predicted = parseLikertAnswer(evidence.text);
    if (predicted === null) error = `unparseable answer: ${JSON.stringify(evidence.text.slice(0, 40))}`;
  } else {
    const floored = new Set(evidence.floored ?? []);
    // A prediction resting only on floors is no prediction: the model put no choice in its top-k.
    const best = floored.size >= evidence.choices.length ? undefined : argmax(evidence.logprobs, floored);
    const choice = best === undefined ? undefined : evidence.choices[best];
    predicted = choice === undefined ? null : Number(choice.trim());
    if (predicted === null || !Number.isFinite(predicted)) {
      predicted = null;
      error =
        evidence.logprobs.length === 0
          ? 'no choice scores'
          : floored.size >= evidence.choices.length
            ? 'no choice among the top next-token log-probabilities'
            : 'no finite log-likelihood among the choices';
    }
  }
  const outcome: ScoreOutcome = {
    verdict: predicted === task.gold ? 'OK' : 'WA',
    testsPassed: predicted === task.gold ? 1 : 0,
    testsTotal: 1,
    predicted,
    gold: task.gold,
    goldMean: task.goldMean,
    mode: evidence.mode,
  };
  // No scores at all (a refused item) is neither a tie nor a scored item of the tie count.
  if (evidence.mode !== 'digit-parse' && evidence.logprobs.length > 0) {
    outcome.choiceLogprobs = evidence.logprobs;
    if (evidence.floored && evidence.floored.length > 0) {
      outcome.flooredChoices = evidence.floored;
      if (evidence.floor !== undefined) outcome.floor = evidence.floor;
    }
  }
  if (error) outcome.error = error;
  return outcome;
}

/** Index of the largest finite value; ties go to a measured value over a floor, then to the first. */
function argmax(values: readonly number[], floored: ReadonlySet<number>): number | undefined {
  let best: number | undefined;
  values.forEach((v, i) => {
    if (!Number.isFinite(v)) return;
    const current = best === undefined ? -Infinity : (values[best] ?? -Infinity);
    if (best === undefined || v > current || (v === current && floored.has(best) && !floored.has(i))) best = i;
  });
  return best;
}
