/**
 * The `reference` provider: answers every task with the benchmark's canonical answer.
 * It validates a benchmark end to end (a bundled suite must score exactly 1.0) and is the
 * embedded default model.
 */
import { InputError } from '../errors.ts';
import type { ChoiceScores, Generation, GenerateRequest, Provider, ScoreChoicesRequest } from './provider.ts';
import type { ProviderKind } from './provider-kind.ts';

/** `-m reference`: free, trusted, one sample per canonical answer; needs no permission. */
export const reference: ProviderKind = {
  scheme: 'reference',
  usage: 'reference',
  description: "the task's canonical answer (validates a benchmark end to end; the default)",
  argument: false,
  billed: false,
  answersWithReference: true,
  iam: [],
  create: () => referenceProvider(),
};

export function referenceProvider(): Provider {
  return {
    id: reference.scheme,
    kind: reference.scheme,
    model: reference.scheme,
    concurrency: 64,
    async generate(req: GenerateRequest): Promise<Generation> {
      if (req.reference === undefined) {
        throw new InputError(`task ${req.taskId} has no reference answer${req.language ? ` in ${req.language}` : ''}`, { field: 'solutions' });
      }
      return { text: req.reference, usage: { promptTokens: 0, completionTokens: 0 }, latencyMs: 0, attempts: 1 };
    },
    async scoreChoices(req: ScoreChoicesRequest): Promise<ChoiceScores> {
      if (req.referenceIndex === undefined) throw new InputError(`task ${req.taskId} has no reference choice`);
      return {
        logprobs: req.choices.map((_, i) => (i === req.referenceIndex ? 0 : -20)),
        usage: { promptTokens: 0, completionTokens: 0 },
        latencyMs: 0,
      };
    },
  };
}
