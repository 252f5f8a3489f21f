/**
 * Likelihood scoring calls the model once per choice (OpenAI-compatible servers and
 * SageMaker alike); the item's scores are those calls combined.
 */
import type { ChoiceScores } from '#core/models/index.ts';
import type { TokenUsage } from '#core/types.ts';
import { addUsage } from './call-policy.ts';

/** One choice scored in its own call. */
export interface ScoredChoice {
  logprob: number;
  usage: TokenUsage;
  latencyMs: number;
  attempts: number;
}

/** The choices' log-probabilities in order; usage and attempts summed; latency of the slowest call (they run in parallel). */
export function combineChoiceScores(scored: readonly ScoredChoice[]): ChoiceScores {
  return {
    logprobs: scored.map((s) => s.logprob),
    usage: scored.reduce<TokenUsage>((sum, s) => addUsage(sum, s.usage) as TokenUsage, { promptTokens: 0, completionTokens: 0 }),
    latencyMs: Math.max(0, ...scored.map((s) => s.latencyMs)),
    attempts: scored.reduce((sum, s) => sum + s.attempts, 0),
  };
}
