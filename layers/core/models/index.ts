/**
 * The model port (DESIGN §8): a prompt in, a completion (or choice scores) out; the batch port;
 * what a provider kind says about itself; and the pure providers (`reference`, `replay:`).
 * Providers over the network live in layers/providers.
 */
export { BATCH_ENDINGS, BATCH_PHASES, type BatchClient, type BatchJobStatus, type BatchLimits, type BatchRecord, type BatchResult } from './batch.ts';
export { promptText } from './prompt-text.ts';
export type { ArnPattern, IamGrant, ProviderKind } from './provider-kind.ts';
export {
  LikertModeChoiceSchema,
  LikertModeSchema,
  type ChatMessage,
  type ChoiceScores,
  type GenerateRequest,
  type Generation,
  type GenerationParams,
  type LikertMode,
  type LikertProbe,
  type LikertScoring,
  type ParamsAdaptation,
  type Prompt,
  type Provider,
  type ScoreChoicesRequest,
} from './provider.ts';
export { reference } from './reference.ts';
export { numberSamples, replay } from './replay.ts';
export { sampleLines } from './sample-lines.ts';
