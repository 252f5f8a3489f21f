/**
 * The `likert` scorer: the prediction is the choice with the highest log-likelihood
 * (likelihood mode) or a strictly parsed digit (digit-parse mode, for providers without
 * log-probabilities). OK when the prediction equals the discretised gold, WA otherwise.
 */
import { parseLikertAnswer } from '../benchmarks/abricot.ts';
import type { LikertTask, ScoreOutcome } from '../types.ts';

export type LikertEvidence =
  | { mode: 'likelihood'; logprobs: number[]; choices: readonly string[] }
  | { mode: 'digit-parse'; text: string };

export function scoreLikert(task: LikertTask, evidence: LikertEvidence): ScoreOutcome {
  let predicted: number | null;
  let error: string | undefined;
  if (evidence.mode === 'likelihood') {
    const best = argmax(evidence.logprobs);
    const choice = best === undefined ? undefined : evidence.choices[best];
    predicted = choice === undefined ? null : Number(choice.trim());
    if (predicted === null || !Number.isFinite(predicted)) {
      predicted = null;
      error = 'no finite log-likelihood among the choices';
    }
  } else {
    predicted = parseLikertAnswer(evidence.text);
    if (predicted === null) error = `unparseable answer: ${JSON.stringify(evidence.text.slice(0, 40))}`;
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
  if (evidence.mode === 'likelihood') outcome.choiceLogprobs = evidence.logprobs;
  if (error) outcome.error = error;
  return outcome;
}

/** Index of the largest finite value; ties go to the first. */
function argmax(values: readonly number[]): number | undefined {
  let best: number | undefined;
  values.forEach((v, i) => {
    if (Number.isFinite(v) && (best === undefined || v > (values[best] ?? -Infinity))) best = i;
  });
  return best;
}
