/**
 * The model provider interface. Providers over the network live in layers/providers;
 * the pure ones (reference, replay) live here beside it.
 *
 * @example
 * const provider: Provider = referenceProvider();
 * const g = await provider.generate({ taskId: 't1', sample: 0, prompt, params, reference: 'print(1)' });
 */
import type { TokenUsage } from '../types.ts';

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/**
 * A prompt in both shapes: chat (system + messages) for chat models, and a flat
 * completion text for completion-style prompts (Kotlin HumanEval).
 */
export interface Prompt {
  system?: string;
  messages: ChatMessage[];
  /** Completion-style prompt; when set, completion endpoints receive exactly this text. */
  completion?: string;
  /** Which style the benchmark prefers. */
  style: 'chat' | 'completion';
}

export interface GenerationParams {
  temperature: number;
  topP: number;
  maxTokens: number;
  stop: string[];
  seed?: number;
}

export interface GenerateRequest {
  taskId: string;
  /** Sample index within the task, 0-based. */
  sample: number;
  language?: string;
  prompt: Prompt;
  params: GenerationParams;
  /** The benchmark's canonical answer, when it has one (used by `reference`). */
  reference?: string;
  signal?: AbortSignal;
}

export interface Generation {
  text: string;
  usage: TokenUsage;
  latencyMs: number;
  finishReason?: string;
  /** Number of provider calls spent (retries included). */
  attempts?: number;
}

export interface ScoreChoicesRequest {
  taskId: string;
  prompt: Prompt;
  choices: string[];
  /** Index of the correct choice when the benchmark knows it (used by `reference`). */
  referenceIndex?: number;
  signal?: AbortSignal;
}

export interface ChoiceScores {
  /** log P(choice | prompt), one per choice, same order. */
  logprobs: number[];
  usage: TokenUsage;
  latencyMs: number;
}

export interface Provider {
  /** Full spec as given by the user, e.g. `bedrock:anthropic.claude-3-haiku`. */
  readonly id: string;
  /** Scheme: reference, replay, bedrock, sagemaker, openai. */
  readonly kind: string;
  /** Model name recorded in records and manifests. */
  readonly model: string;
  /** Max calls in flight that this provider tolerates (rate limit). */
  readonly concurrency?: number;
  generate(req: GenerateRequest): Promise<Generation>;
  /** Present only when the provider can return log-likelihoods. */
  scoreChoices?(req: ScoreChoicesRequest): Promise<ChoiceScores>;
  /** Validates that the provider knows these tasks (replay: unknown ids are errors). */
  prepare?(taskIds: ReadonlySet<string>): Promise<void>;
  /** How many samples the provider has for a task, when it is fixed (replay). */
  samplesFor?(taskId: string): number | undefined;
  /** The language a fixed sample was written in, when the provider knows it (replay). */
  languageFor?(taskId: string, sample: number): string | undefined;
  close?(): Promise<void>;
}
