/**
 * The model provider interface. Providers over the network live in layers/providers;
 * the pure ones (reference, replay) live here beside it.
 *
 * @example
 * const provider: Provider = referenceProvider();
 * const g = await provider.generate({ taskId: 't1', sample: 0, prompt, params, reference: 'print(1)' });
 */
import { z } from 'zod';
import { LIKERT_MODES, type LikertMode, type PromptStyle, type TokenUsage } from '../types.ts';

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
  style: PromptStyle;
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
  /**
   * Set when the model deterministically gave no usable answer (a refusal, `content: null`,
   * a tool call): recorded as the item's error on first sight, never retried.
   */
  refusal?: string;
}

/**
 * How a likert answer is read from a model (DESIGN §6): the log-likelihood of each choice
 * after the prompt (`likelihood`), the next-token log-probabilities of the choices in one
 * chat call (`next-token`), or a digit parsed from generated text (`digit-parse`).
 */
export const LikertModeSchema = z.enum(LIKERT_MODES);
export type { LikertMode };

/** What `--likert-mode` takes: a mode, or `auto` (the best the server supports, found by a capability check). */
export const LikertModeChoiceSchema = z.enum(['auto', ...LikertModeSchema.options]);
export type LikertModeChoice = z.infer<typeof LikertModeChoiceSchema>;

/** The mode a run uses, the wire mechanism behind it, and why it was chosen (recorded in the manifest). */
export interface LikertScoring {
  mode: LikertMode;
  /** e.g. `openai-echo`, `tgi-prefill`, `vllm-prompt-logprobs`, `chat-top-logprobs`, `generate`. */
  method: string;
  /** What the capability check found, or that `--likert-mode` forced it. */
  reason: string;
  /** next-token: how many top log-probabilities each call asks for. */
  topLogprobs?: number;
  /** Tokens the capability check was billed for (charged to the run once it exists). */
  probeUsage?: TokenUsage;
}

/** What one cheap capability call found: the modes the server supports, best first, and why the others are out. */
export interface LikertProbe {
  supported: { mode: LikertMode; method: string; topLogprobs?: number }[];
  /** One line per mode found missing, e.g. "no prompt log-probabilities: /completions answered 404". */
  findings: string[];
  /** Tokens the probe calls were billed for. */
  usage: TokenUsage;
}

export interface ScoreChoicesRequest {
  taskId: string;
  prompt: Prompt;
  choices: string[];
  /** Index of the correct choice when the benchmark knows it (used by `reference`). */
  referenceIndex?: number;
  /** The run's scoring mode (`likelihood` when absent). */
  scoring?: LikertScoring;
  signal?: AbortSignal;
}

export interface ChoiceScores {
  /** log P(choice | prompt), one per choice, same order. */
  logprobs: number[];
  usage: TokenUsage;
  latencyMs: number;
  /** next-token: indexes of choices absent from the top-k, given `floor` instead of a measured value. */
  floored?: number[];
  floor?: number;
  /** Provider calls spent (retries included). */
  attempts?: number;
  /**
   * Set when the model deterministically gave no scores (a content filter refused the prompt
   * or the answer): `logprobs` is empty, the item recorded with this reason, never retried.
   */
  refusal?: string;
}

/**
 * What a model can take, decided before any call: the settings actually sent, warnings for
 * what was adapted (recorded in the manifest). A setting the model cannot take at all is an
 * InputError instead.
 */
export interface ParamsAdaptation {
  warnings: string[];
  /**
   * The output limit each call sends, when the provider raises it above `params.maxTokens`
   * (a model whose thinking cannot be turned off gets its thinking budget on top): what
   * `--max-cost` reserves per call.
   */
  maxTokens?: number;
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
  /**
   * What the model is, when the provider can tell (a model file's SHA-256, architecture,
   * quantisation, context size, chat template): recorded in the manifest's `model.details`.
   */
  readonly details?: Readonly<Record<string, string | number | boolean | null>>;
  generate(req: GenerateRequest): Promise<Generation>;
  /** Present only when the provider can return log-likelihoods (or next-token log-probabilities). */
  scoreChoices?(req: ScoreChoicesRequest): Promise<ChoiceScores>;
  /**
   * One cheap call (or none, when the answer is static) finding which likert modes the
   * server supports; the run caches the answer in its manifest.
   */
  probeLikert?(signal?: AbortSignal): Promise<LikertProbe>;
  /**
   * Checks the run's settings against what the model can take before any call: returns
   * warnings for what it will adapt on every call, throws an InputError for what it cannot take.
   */
  adaptParams?(params: GenerationParams, style: Prompt['style']): ParamsAdaptation;
  /** Validates that the provider knows these tasks (replay: unknown ids are errors). */
  prepare?(taskIds: ReadonlySet<string>): Promise<void>;
  /** How many samples the provider has for a task, when it is fixed (replay). */
  samplesFor?(taskId: string): number | undefined;
  /** The language a fixed sample was written in, when the provider knows it (replay). */
  languageFor?(taskId: string, sample: number): string | undefined;
  close?(): Promise<void>;
}
