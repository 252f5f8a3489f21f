/**
 * The model-capabilities table: what a model accepts, by provider and model-id pattern
 * (stop-sequence rules, mutually exclusive sampling parameters, how many stop sequences,
 * chat vs completion, log-probabilities). Settings a model cannot take are adapted before
 * any call — dropped with a warning recorded in the manifest, and a dropped stop sequence
 * applied to the answer afterwards — so a run never becomes a column of `SE`.
 * The shipped `model-capabilities.json` is overridable by a user file of the same shape
 * (`--capabilities`), whose rules apply after the shipped ones.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InputError } from '#core/errors.ts';
import type { GenerationParams } from '#core/models/index.ts';
import shipped from './model-capabilities.json' with { type: 'json' };
import { PROVIDER_REGISTRY } from './registry.ts';

const ruleSchema = z.strictObject({
  /** A network provider's scheme (checked against the registry when a table is read). */
  provider: z.string().refine((p) => networkSchemes().includes(p), { message: 'must be a network provider of the registry' }),
  /** A regular expression searched in the model id (inference-profile prefix removed). */
  model: z.string().refine((p) => isRegExp(p), 'must be a regular expression'),
  stop_non_whitespace: z.boolean().optional(),
  max_stop_sequences: z.number().int().min(0).optional(),
  exclusive_sampling: z.boolean().optional(),
  completion: z.boolean().optional(),
  logprobs: z.boolean().optional(),
  /** false: the model takes no temperature and no top_p (OpenAI reasoning models, Claude Opus 4.7+). */
  sampling: z.boolean().optional(),
  /** The request field of the answer's length (OpenAI reasoning models: `max_completion_tokens`). */
  max_tokens_field: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
  /** false: the model takes no stop sequences at all. */
  stop_sequences: z.boolean().optional(),
  /** The only stop sequences the model accepts (Titan Text: "|" or "User:"). */
  allowed_stops: z.array(z.string()).optional(),
  /** false: `/completions` never echoes the prompt with its log-probabilities (Ollama): likelihood mode is not probed. */
  echo: z.boolean().optional(),
  /** The model may think before it answers, and its thinking counts against the answer's token limit (Gemini 2.5 and later). */
  thinking_in_max_tokens: z.boolean().optional(),
  /** Sent as `reasoning_effort` on every chat call: the least thinking the model takes ("none": off). */
  reasoning_effort: z.enum(['none', 'minimal', 'low']).optional(),
  /**
   * Thinking the model spends at its lowest effort and cannot turn off, in tokens: added to the
   * answer's token limit so a short answer still has room (0: thinking is off).
   */
  thinking_budget: z.number().int().min(0).optional(),
  /** The most output tokens (thinking included) one call may ask for: a limit that cannot fit is refused before any call. */
  max_output_tokens: z.number().int().min(1).optional(),
  /** Sent as `chat_template_kwargs: {enable_thinking: false}` (vLLM and llama.cpp serving Qwen3: the chat template's switch). */
  template_thinking_off: z.boolean().optional(),
  source: z.string(),
});

const tableSchema = z.strictObject({ as_of: z.string().optional(), source: z.string().optional(), rules: z.array(ruleSchema) });

export type CapabilityTable = z.infer<typeof tableSchema>;

/** What one model accepts, merged from every matching rule. */
export interface ModelCapabilities {
  /** Stop sequences must contain a non-whitespace character (Anthropic). */
  stopNonWhitespace: boolean;
  maxStopSequences?: number;
  /** temperature and top_p cannot both be sent (Claude 4.5 generation). */
  exclusiveSampling: boolean;
  /** Accepts a raw completion prompt (false: chat only). */
  completion: boolean;
  /** Can return log-probabilities at all (false: no probe, digit-parse). */
  logprobs: boolean;
  /** Takes temperature and top_p (false: neither is sent). */
  sampling: boolean;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
  /** Takes stop sequences at all. */
  stopSequences: boolean;
  allowedStops?: string[];
  /** Why `/completions` cannot echo prompt log-probabilities (the source of the rule that says so); undefined: it may. */
  noEcho?: string;
  /** Thinking tokens count against `max_tokens`: a small limit may leave no room for the answer. */
  thinkingInMaxTokens: boolean;
  /** `reasoning_effort` sent on chat calls to turn the model's thinking off or down. */
  reasoningEffort?: 'none' | 'minimal' | 'low';
  /** Thinking tokens the model spends anyway (it cannot turn thinking off): added to max tokens. */
  thinkingBudget: number;
  maxOutputTokens?: number;
  /** Send `chat_template_kwargs: {enable_thinking: false}`. */
  templateThinkingOff: boolean;
  /** The evidence of every rule that applied. */
  sources: string[];
}

/** The settings one call actually sends, the stop sequences applied to the answer instead, and why. */
export interface AdaptedParams {
  params: GenerationParams;
  /** Stop sequences not sent: the answer is cut at the first of them after generation. */
  clientStops: string[];
  warnings: string[];
  /** Leave temperature and top_p out of the request (the model refuses them). */
  omitSampling: boolean;
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

const PROFILE_PREFIX = /^(us|eu|apac|us-gov|ca|jp|au|global)\./;

/**
 * Below this answer limit a thinking model is warned about: Gemini 2.5's dynamic thinking
 * alone may spend thousands of tokens (Gemini API docs, "Gemini thinking": budgets up to 24,576).
 */
const THINKING_ROOM = 4096;

function isRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** The shipped table. */
export function shippedCapabilityTable(): CapabilityTable {
  return tableSchema.parse(shipped);
}

/**
 * The shipped table with a user file's rules after it. A missing, non-JSON or ill-shaped
 * file is an InputError naming it and the field.
 */
export async function loadCapabilityTable(path?: string): Promise<CapabilityTable> {
  const base = shippedCapabilityTable();
  if (path === undefined) return base;
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (err) {
    throw new InputError(`cannot read capabilities file: ${(err as Error).message}`, { file: path }, { cause: err });
  }
  const parsed = tableSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InputError(issue?.message ?? 'invalid capabilities file', { file: path, field: issue?.path.join('.') || '(root)' });
  }
  return { ...base, rules: [...base.rules, ...parsed.data.rules] };
}

/**
 * The capabilities of `model` on `provider`: every matching rule, later ones winning.
 *
 * @example
 * capabilitiesOf(shippedCapabilityTable(), 'bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0').exclusiveSampling; // true
 */
export function capabilitiesOf(table: CapabilityTable, provider: string, model: string): ModelCapabilities {
  const id = model.replace(PROFILE_PREFIX, '');
  const caps: ModelCapabilities = {
    stopNonWhitespace: false,
    exclusiveSampling: false,
    completion: true,
    logprobs: true,
    sampling: true,
    maxTokensField: 'max_tokens',
    stopSequences: true,
    thinkingInMaxTokens: false,
    thinkingBudget: 0,
    templateThinkingOff: false,
    sources: [],
  };
  for (const rule of table.rules) {
    if (rule.provider !== provider || !new RegExp(rule.model).test(id)) continue;
    if (rule.stop_non_whitespace !== undefined) caps.stopNonWhitespace = rule.stop_non_whitespace;
    if (rule.max_stop_sequences !== undefined) caps.maxStopSequences = rule.max_stop_sequences;
    if (rule.exclusive_sampling !== undefined) caps.exclusiveSampling = rule.exclusive_sampling;
    if (rule.completion !== undefined) caps.completion = rule.completion;
    if (rule.logprobs !== undefined) caps.logprobs = rule.logprobs;
    if (rule.sampling !== undefined) caps.sampling = rule.sampling;
    if (rule.max_tokens_field !== undefined) caps.maxTokensField = rule.max_tokens_field;
    if (rule.stop_sequences !== undefined) caps.stopSequences = rule.stop_sequences;
    if (rule.allowed_stops !== undefined) caps.allowedStops = rule.allowed_stops;
    if (rule.echo === false) caps.noEcho = rule.source;
    if (rule.echo === true) delete caps.noEcho;
    if (rule.thinking_in_max_tokens !== undefined) caps.thinkingInMaxTokens = rule.thinking_in_max_tokens;
    if (rule.reasoning_effort !== undefined) caps.reasoningEffort = rule.reasoning_effort;
    if (rule.thinking_budget !== undefined) caps.thinkingBudget = rule.thinking_budget;
    if (rule.max_output_tokens !== undefined) caps.maxOutputTokens = rule.max_output_tokens;
    if (rule.template_thinking_off !== undefined) caps.templateThinkingOff = rule.template_thinking_off;
    caps.sources.push(rule.source);
  }
  return caps;
}

/**
 * The settings a call sends to a model with these capabilities. Pure and deterministic:
 * planning calls it once to record the warnings, every call again to adapt.
 */
export function adaptParams(caps: ModelCapabilities, params: GenerationParams, model = 'the model'): AdaptedParams {
  const warnings: string[] = [];
  const clientStops: string[] = [];
  let stop = params.stop;
  if (!caps.stopSequences && stop.length > 0) {
    clientStops.push(...stop);
    warnings.push(
      `stop sequence(s) ${stop.map((s) => JSON.stringify(s)).join(', ')} not sent: the model takes no stop sequences; the answer is cut at them after generation`,
    );
    stop = [];
  }
  if (caps.allowedStops) {
    const allowed = caps.allowedStops;
    const refused = stop.filter((s) => !allowed.includes(s));
    if (refused.length > 0) {
      clientStops.push(...refused);
      stop = stop.filter((s) => allowed.includes(s));
      warnings.push(
        `stop sequence(s) ${refused.map((s) => JSON.stringify(s)).join(', ')} not sent: the model accepts only ${allowed.map((s) => JSON.stringify(s)).join(' or ')}; the answer is cut at them after generation`,
      );
    }
  }
  if (caps.stopNonWhitespace) {
    const blank = stop.filter((s) => s.trim() === '');
    if (blank.length > 0) {
      clientStops.push(...blank);
      stop = stop.filter((s) => s.trim() !== '');
      warnings.push(
        `stop sequence(s) ${blank.map((s) => JSON.stringify(s)).join(', ')} not sent: the model rejects stop sequences without a non-whitespace character; the answer is cut at them after generation`,
      );
    }
  }
  if (caps.maxStopSequences !== undefined && stop.length > caps.maxStopSequences) {
    const rest = stop.slice(caps.maxStopSequences);
    clientStops.push(...rest);
    stop = stop.slice(0, caps.maxStopSequences);
    warnings.push(
      `only the first ${caps.maxStopSequences} stop sequences are sent (the model takes no more); ${rest.map((s) => JSON.stringify(s)).join(', ')} cut the answer after generation`,
    );
  }
  let topP = params.topP;
  if (!caps.sampling) {
    warnings.push(
      `temperature ${params.temperature}${params.topP < 1 ? ` and top_p ${params.topP}` : ''} not sent: the model takes no sampling parameters (it samples at its own fixed setting)`,
    );
    topP = 1;
  } else if (caps.exclusiveSampling && topP < 1) {
    warnings.push(`top_p ${topP} not sent: the model takes temperature or top_p, not both; temperature ${params.temperature} is kept`);
    topP = 1;
  }
  let maxTokens = params.maxTokens;
  if (caps.thinkingBudget > 0) {
    maxTokens = params.maxTokens + caps.thinkingBudget;
    warnings.push(
      `max tokens ${params.maxTokens} raised to ${maxTokens}: ${model} cannot turn its thinking off${caps.reasoningEffort ? ` (reasoning_effort "${caps.reasoningEffort}" is its lowest)` : ''}, and that thinking (about ${caps.thinkingBudget} tokens) counts against the limit; an answer that still comes back empty is recorded as an error, not a wrong answer`,
    );
  }
  if (caps.maxOutputTokens !== undefined && maxTokens > caps.maxOutputTokens) {
    throw new InputError(
      `${model}: --max-tokens ${params.maxTokens}${caps.thinkingBudget > 0 ? ` plus the ${caps.thinkingBudget} thinking tokens it cannot turn off` : ''} exceeds its output limit of ${caps.maxOutputTokens} tokens; lower --max-tokens to at most ${Math.max(0, caps.maxOutputTokens - caps.thinkingBudget)} (or give the model's real limits with --capabilities)`,
      { field: 'maxTokens' },
    );
  }
  if (caps.thinkingInMaxTokens && caps.thinkingBudget === 0 && params.maxTokens < THINKING_ROOM) {
    warnings.push(
      `max tokens ${params.maxTokens}: the model may think before it answers and its thinking counts against that limit, so an answer may come back empty or cut (finish_reason "length")`,
    );
  }
  return { params: { ...params, stop, topP, maxTokens }, clientStops, warnings, omitSampling: !caps.sampling, maxTokensField: caps.maxTokensField };
}

/** The answer cut at the first of `stops` (what the server would have done with them). */
export function cutAtStops(text: string, stops: readonly string[]): string {
  let end = text.length;
  for (const stop of stops) {
    if (stop === '') continue;
    const at = text.indexOf(stop);
    if (at >= 0 && at < end) end = at;
  }
  return text.slice(0, end);
}

/** The registry's network schemes; read when a table is parsed (the registry imports the adapters, which import this file). */
function networkSchemes(): string[] {
  return PROVIDER_REGISTRY.network.map((k) => k.scheme);
}
