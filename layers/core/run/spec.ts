/**
 * The run request, validated by one zod schema shared by the CLI and the HTTP API.
 * A bad value is rejected with a message naming the field and the reason.
 */
import { z } from 'zod';
import { GOLD_RULES, PROMPT_LANGUAGES, PromptStyleSchema, TIME_CLOCKS, type ProtocolChoice } from '../benchmarks/protocol.ts';
import { LikertModeChoiceSchema } from '../models/provider.ts';
import { CHAT_TEMPLATE_NAMES } from '../prompts/chat-templates.ts';
import { InputError } from '../errors.ts';
import { LANGUAGE_SPECS, languageIdOf } from '../languages/index.ts';

/** A model's price in USD per million input and output tokens (a run request carries only these two figures). */
export const PriceSchema = z.strictObject({
  input_per_mtok: z.number().nonnegative().finite(),
  output_per_mtok: z.number().nonnegative().finite(),
});

/** A `--prices` entry as a remote run's request carries it: on-demand and, where given, batch prices. */
const RequestModelPriceSchema = PriceSchema.extend({
  batch_input_per_mtok: z.number().nonnegative().finite().optional(),
  batch_output_per_mtok: z.number().nonnegative().finite().optional(),
  /** Where the user read it (recorded with the run's price). */
  source: z.string().max(500).optional(),
});

/** A `--prices` premium: `factor` × the price for the ids `model` (a regular expression) matches, except `except_prefixes`. */
const PremiumSchema = z.strictObject({
  model: z.string().min(1).max(200).refine(compiles, 'must be a regular expression'),
  factor: z.number().min(1).finite(),
  except_prefixes: z.array(z.string()).max(20).default([]),
  source: z.string().max(500),
});

export const RunSpecSchema = z
  .object({
    benchmark: z.string().min(1, 'must name a benchmark'),
    model: z.string().min(1, 'must name a provider'),
    n: z.number().int('must be an integer').min(1, 'must be at least 1').max(1000).optional(),
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().gt(0).max(1).optional(),
    maxTokens: z.number().int().min(1).max(200_000).optional(),
    stop: z.array(z.string()).optional(),
    seed: z.number().int().min(0).default(1234),
    split: z.string().min(1).optional(),
    limit: z.number().int().min(1).optional(),
    language: z
      .string()
      .min(1)
      .superRefine((l, ctx) => {
        const unknown = unknownLanguages(l);
        if (unknown.length > 0)
          ctx.addIssue({
            code: 'custom',
            message: `names no language polyeval runs: ${unknown.join(', ')} (languages: ${LANGUAGE_SPECS.map((s) => s.id).join(', ')})`,
          });
      })
      .optional(),
    timeScale: z.number().gt(0).max(100).default(1),
    maxCostUsd: z.number().min(0).optional(),
    /**
     * The price of a model the shipped price table lacks (`remote run --assume-price`), USD per
     * million tokens; the table's own price wins, as with a local run's `--assume-price`.
     */
    assumePrice: PriceSchema.optional(),
    /** Prices that override the shipped table for this run (`remote run --prices <file.json>`: the file's models), by model id. */
    prices: z
      .strictObject({
        models: z.record(z.string().min(1), RequestModelPriceSchema).refine((m) => Object.keys(m).length <= 500, 'at most 500 models'),
        /** The file's premiums (a factor on some ids of a model), replacing the shipped ones. */
        premiums: z.array(PremiumSchema).max(100).optional(),
      })
      .optional(),
    likertMode: LikertModeChoiceSchema.default('auto'),
    /** false (`--no-early-stop`): run every item even when the first ones all fail the same way (run/early-stop.ts). */
    earlyStop: z.boolean().optional(),
    /** kotlinc -language-version/-api-version (kotlinc ≥ 2.1 rejects APIs older datasets use). */
    kotlinLanguageVersion: z
      .string()
      .regex(/^\d+\.\d+$/, 'must look like 1.9 or 2.0')
      .optional(),
    /** A named protocol of the benchmark (default: its source's); checked against the benchmark at plan time. */
    protocol: z.string().min(1).optional(),
    /** io-tests: each row's own time limit instead of the protocol's fixed one. */
    rowLimits: z.boolean().optional(),
    /** How the prompt is sent: one plain text (completion endpoints) or chat messages. */
    promptStyle: PromptStyleSchema.optional(),
    /** likert: solved examples before each item (lm-eval's --num_fewshot). */
    shots: z.number().int('must be an integer').min(0).max(64).optional(),
    /** likert: how the human mean becomes the gold digit (authors: the ABRICOT authors' rule; equal-bins). */
    gold: z.enum(GOLD_RULES).optional(),
    /** likert: seed of lm-eval's few-shot draw (its fewshot_random_seed; default 1234). */
    shotSeed: z.number().int('must be an integer').min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    /** likert (ABRICOT paper): the chat template rendered for raw-text calls. */
    chatTemplate: z.enum(CHAT_TEMPLATE_NAMES).optional(),
    /** io-tests (RoCode): language of the prompt's instructions (en: the paper's translation ablation). */
    promptLanguage: z.enum(PROMPT_LANGUAGES).optional(),
    /** io-tests: what the time limit measures, CPU time or wall time. */
    timeClock: z.enum(TIME_CLOCKS).optional(),
    /** Generate through the provider's batch API at its batch price (`remote run --batch`; a sweep or nightly cell's `batch: true`). */
    batch: z.boolean().optional(),
  })
  .strict();

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}

/** The parts of `--language a,b` that no language spec claims (as id or alias, case and spaces ignored). */
function unknownLanguages(list: string): string[] {
  return list
    .split(',')
    .map((l) => l.trim())
    .filter((l) => l !== '' && languageIdOf(l) === undefined);
}

export type RunSpec = z.output<typeof RunSpecSchema>;
export type RunSpecInput = z.input<typeof RunSpecSchema>;

/** Validates a run request; throws InputError naming the first bad field. */
export function parseRunSpec(input: unknown, origin = 'run request'): RunSpec {
  const result = RunSpecSchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') || undefined;
  throw new InputError(issue?.message ?? 'is invalid', { file: origin, ...(field ? { field } : {}) });
}

/** The protocol part of a run spec, as `bindProtocol` takes it. */
export function protocolChoiceOf(
  spec: Pick<RunSpec, 'protocol' | 'rowLimits' | 'promptStyle' | 'shots' | 'gold' | 'shotSeed' | 'chatTemplate' | 'promptLanguage' | 'timeClock'>,
): ProtocolChoice {
  return {
    ...(spec.protocol !== undefined ? { protocol: spec.protocol } : {}),
    ...(spec.rowLimits ? { rowLimits: true } : {}),
    ...(spec.promptStyle !== undefined ? { promptStyle: spec.promptStyle } : {}),
    ...(spec.shots !== undefined ? { shots: spec.shots } : {}),
    ...(spec.gold !== undefined ? { gold: spec.gold } : {}),
    ...(spec.shotSeed !== undefined ? { shotSeed: spec.shotSeed } : {}),
    ...(spec.chatTemplate !== undefined ? { chatTemplate: spec.chatTemplate } : {}),
    ...(spec.promptLanguage !== undefined ? { promptLanguage: spec.promptLanguage } : {}),
    ...(spec.timeClock !== undefined ? { timeClock: spec.timeClock } : {}),
  };
}
