/**
 * Every run option, declared once: its schema (the stored RunSpec field: manifests on disk and
 * in S3 keep this flat shape), its command-line spelling, its help, its group and the rules it
 * takes part in. `polyeval run`, `polyeval remote run`, the HTTP API (`POST /runs`) and sweeps
 * (a grid of `-b`/`-m`, a nightly sweep's `params`) all validate with what is derived from here.
 *
 * Adding an option is one entry in RUN_OPTIONS (and, for a rule, one entry or an `appliesTo`).
 * Longer than our usual file: it is one table, an entry per option, read top to bottom.
 */
import { z } from 'zod';
import { GOLD_RULES, PROMPT_LANGUAGES, PromptStyleSchema, TIME_CLOCKS, type ProtocolDefinition } from '../benchmarks/index.ts';
import { parseBenchmarkSpec } from '../benchmarks/index.ts';
import { LikertModeChoiceSchema } from '../models/index.ts';
import { CHAT_TEMPLATE_NAMES } from '../prompts/index.ts';
import { LANGUAGE_SPECS, languageIdOf } from '../languages/index.ts';
import { longFlagOf, runOption, type OptionRule, type RunOption } from './option-registry.ts';

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

const int = (min: number) => ({ kind: 'int', min }) as const;
const number = { kind: 'number' } as const;
const choices = (values: readonly string[]) => ({ kind: 'choices', choices: values }) as const;

/** The declarations, in `--help` order within each group. */
export const RUN_OPTIONS = {
  benchmark: runOption({
    schema: z.string().min(1, 'must name a benchmark'),
    group: 'target',
    help: (usage) => `${usage} (repeatable: a sweep)`,
    cli: { flags: '-b, --benchmark <spec>', parse: { kind: 'repeatable' } },
  }),
  model: runOption({
    schema: z.string().min(1, 'must name a provider'),
    group: 'target',
    help: (usage) => `${usage} (default: reference; repeatable: a sweep)`,
    cli: { flags: '-m, --model <provider>', parse: { kind: 'repeatable' } },
  }),
  n: runOption({
    schema: z.number().int('must be an integer').min(1, 'must be at least 1').max(1000).optional(),
    group: 'sampling',
    help: 'samples per task',
    cli: { flags: '-n, --n <count>', parse: int(1) },
  }),
  temperature: runOption({
    schema: z.number().min(0).max(2).optional(),
    group: 'sampling',
    help: 'sampling temperature',
    cli: { flags: '--temperature <t>', parse: number },
  }),
  topP: runOption({
    schema: z.number().gt(0).max(1).optional(),
    group: 'sampling',
    help: 'nucleus sampling',
    cli: { flags: '--top-p <p>', parse: number },
    aliases: ['top_p'],
  }),
  maxTokens: runOption({
    schema: z.number().int().min(1).max(200_000).optional(),
    group: 'sampling',
    help: 'max new tokens per sample',
    cli: { flags: '--max-tokens <count>', parse: int(1) },
    aliases: ['max_tokens'],
  }),
  stop: runOption({
    schema: z.array(z.string()).optional(),
    group: 'sampling',
    help: 'stop sequences (replace the benchmark defaults)',
    cli: { flags: '--stop <sequence...>' },
  }),
  seed: runOption({
    schema: z.number().int().min(0).default(1234),
    group: 'sampling',
    help: 'seed for sampling and bootstrap intervals',
    cli: { flags: '--seed <seed>', parse: int(0) },
  }),
  split: runOption({
    schema: z.string().min(1).optional(),
    group: 'selection',
    help: 'only tasks of this split (train, validation, test)',
    cli: { flags: '--split <split>' },
  }),
  limit: runOption({
    schema: z.number().int().min(1).optional(),
    group: 'selection',
    help: 'only the first N tasks',
    cli: { flags: '--limit <count>', parse: int(1) },
  }),
  language: runOption({
    schema: z
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
    group: 'selection',
    help: 'language of the requested code (c, cpp, python, kotlin, java, javascript; several: c,cpp,python)',
    cli: { flags: '--language <language>' },
  }),
  timeScale: runOption({
    schema: z.number().gt(0).max(100).default(1),
    group: 'execution',
    help: 'multiply every time limit (slow machines)',
    cli: { flags: '--time-scale <factor>', parse: number },
    aliases: ['time_scale'],
  }),
  maxCostUsd: runOption({
    schema: z.number().min(0).optional(),
    group: 'pricing',
    help: 'stop cleanly before the estimated cost exceeds this (resumable)',
    cli: { flags: '--max-cost <usd>', parse: number },
    aliases: ['max_cost_usd', 'max_cost'],
  }),
  /**
   * The price of a model the shipped price table lacks (`remote run --assume-price`), USD per
   * million tokens; the table's own price wins, as with a local run's `--assume-price`.
   */
  assumePrice: runOption({
    schema: PriceSchema.optional(),
    group: 'pricing',
    help: 'USD per million input,output tokens for a model the price table lacks (recorded in the manifest)',
    cli: { flags: '--assume-price <input,output>', shared: false },
  }),
  /** Prices that override the shipped table for this run (`remote run --prices <file.json>`: the file's models), by model id. */
  prices: runOption({
    schema: z
      .strictObject({
        models: z.record(z.string().min(1), RequestModelPriceSchema).refine((m) => Object.keys(m).length <= 500, 'at most 500 models'),
        /** The file's premiums (a factor on some ids of a model), replacing the shipped ones. */
        premiums: z.array(PremiumSchema).max(100).optional(),
      })
      .optional(),
    group: 'pricing',
    help: 'price table overriding the shipped one',
    cli: { flags: '--prices <file.json>', shared: false },
  }),
  /** false (`--no-early-stop`): run every item even when the first ones all fail the same way (run/early-stop.ts). */
  earlyStop: runOption({
    schema: z.boolean().optional(),
    group: 'execution',
    help: 'run every item even when the first 10 all end SE or all come back empty for the same reason (default: stop there, resumable)',
    // Only the opt-out is sent: a spec without it keeps the rule on.
    cli: { flags: '--no-early-stop', toSpec: (value) => (value === false ? false : undefined) },
  }),
  /** kotlinc -language-version/-api-version (kotlinc ≥ 2.1 rejects APIs older datasets use). */
  kotlinLanguageVersion: runOption({
    schema: z
      .string()
      .regex(/^\d+\.\d+$/, 'must look like 1.9 or 2.0')
      .optional(),
    group: 'protocol',
    help: 'kotlinc -language-version and -api-version (2.0 accepts APIs kotlinc ≥ 2.1 rejects; default for mxeval:)',
    cli: { flags: '--kotlin-language-version <version>' },
  }),
  likertMode: runOption({
    schema: LikertModeChoiceSchema.default('auto'),
    group: 'protocol',
    help: 'ABRICOT: likelihood over 1–5, next-token log-probabilities, or a parsed digit (auto: the best the server supports)',
    cli: { flags: '--likert-mode <mode>', parse: choices(LikertModeChoiceSchema.options) },
    aliases: ['likert_mode'],
  }),
  /** A named protocol of the benchmark (default: its source's); checked against the benchmark (rule `protocol-known`). */
  protocol: runOption({
    schema: z.string().min(1).optional(),
    group: 'protocol',
    help: "the benchmark's named protocol (default: its source's; see: polyeval list benchmarks)",
    cli: { flags: '--protocol <name>' },
  }),
  /** io-tests: each row's own time limit instead of the protocol's fixed one. */
  rowLimits: runOption({
    schema: z.boolean().optional(),
    group: 'protocol',
    help: "io-tests: each row's own time limit instead of the protocol's fixed one",
    cli: { flags: '--row-limits' },
  }),
  /** How the prompt is sent: one plain text (completion endpoints) or chat messages. */
  promptStyle: runOption({
    schema: PromptStyleSchema.optional(),
    group: 'protocol',
    help: 'send the prompt as one plain text (completion endpoints) or as chat messages',
    cli: { flags: '--prompt-style <style>', parse: choices(PromptStyleSchema.options) },
  }),
  /** likert: solved examples before each item (lm-eval's --num_fewshot). */
  shots: runOption({
    schema: z.number().int('must be an integer').min(0).max(64).optional(),
    group: 'protocol',
    help: "likert (ABRICOT): solved examples before each item, as lm-eval's --num_fewshot (default: the protocol's)",
    cli: { flags: '--shots <count>', parse: int(0) },
    appliesTo: { protocolSetting: 'shots' },
  }),
  /** likert: how the human mean becomes the gold digit (authors: the ABRICOT authors' rule; equal-bins). */
  gold: runOption({
    schema: z.enum(GOLD_RULES).optional(),
    group: 'protocol',
    help: "likert (ABRICOT): gold digit rule (authors: min(4, round(5·mean)) + 1, Python's round; equal-bins: min(5, 1 + floor(5·mean)))",
    cli: { flags: '--gold <rule>', parse: choices(GOLD_RULES) },
    appliesTo: { protocolSetting: 'gold' },
  }),
  /** likert: seed of lm-eval's few-shot draw (its fewshot_random_seed; default 1234). */
  shotSeed: runOption({
    schema: z.number().int('must be an integer').min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    group: 'protocol',
    help: "likert (ABRICOT): seed of lm-eval's few-shot draw (its fewshot_random_seed; default 1234)",
    cli: { flags: '--shot-seed <seed>', parse: int(0) },
    appliesTo: { protocolSetting: 'shotSeed' },
  }),
  /** likert (ABRICOT paper): the chat template rendered for raw-text calls. */
  chatTemplate: runOption({
    schema: z.enum(CHAT_TEMPLATE_NAMES).optional(),
    group: 'protocol',
    help: 'ABRICOT paper: chat template rendered for raw-text (likelihood) calls (default: none)',
    cli: { flags: '--chat-template <name>', parse: choices(CHAT_TEMPLATE_NAMES) },
    appliesTo: { protocolSetting: 'chatTemplate' },
  }),
  /** io-tests (RoCode): language of the prompt's instructions (en: the paper's translation ablation). */
  promptLanguage: runOption({
    schema: z.enum(PROMPT_LANGUAGES).optional(),
    group: 'protocol',
    help: "RoCode: language of the prompt's instructions (en: the paper's translation ablation)",
    cli: { flags: '--prompt-language <language>', parse: choices(PROMPT_LANGUAGES) },
    appliesTo: { protocolSetting: 'promptLanguage' },
  }),
  /** io-tests: what the time limit measures, CPU time or wall time. */
  timeClock: runOption({
    schema: z.enum(TIME_CLOCKS).optional(),
    group: 'protocol',
    help: 'io-tests: what the time limit measures (cpu: CPU time, the default; wall: elapsed time)',
    cli: { flags: '--time-clock <clock>', parse: choices(TIME_CLOCKS) },
    appliesTo: { protocolSetting: 'timeLimit' },
  }),
  /** Generate through the provider's batch API at its batch price (`remote run --batch`; a sweep or nightly cell's `batch: true`). */
  batch: runOption({
    schema: z.boolean().optional(),
    group: 'batch',
    help: "generate through the provider's batch API at its batch price",
    cli: { flags: '--batch', shared: false },
  }),
};

export type RunSpecOptions = typeof RUN_OPTIONS;

/** A spec as the rules see it: every field is optional and unknown (rules also serve test registries). */
type SpecValues = Readonly<Record<string, unknown>>;

/**
 * The protocol a spec's benchmark follows, per source (`sample` names several), or nothing when
 * the benchmark is not one the registry resolves without reading data (it is refused, naming
 * the benchmark, where it is loaded).
 */
function protocolsOf(spec: SpecValues): { benchmark: string; names: string[]; definition: ProtocolDefinition | undefined }[] {
  if (typeof spec.benchmark !== 'string') return [];
  let sources;
  try {
    sources = parseBenchmarkSpec(spec.benchmark);
  } catch {
    return [];
  }
  const name = typeof spec.protocol === 'string' ? spec.protocol : undefined;
  return sources.map(({ benchmark }) => ({
    benchmark: benchmark.id,
    names: benchmark.protocols.map((p) => p.name),
    definition: name === undefined ? benchmark.protocols[0] : benchmark.protocols.find((p) => p.name === name),
  }));
}

/** "Only for benchmark B": an option with `appliesTo` is refused where the run's protocol lacks its setting. */
export function appliesToRule(key: string, option: RunOption): OptionRule<SpecValues> | undefined {
  const setting = option.appliesTo?.protocolSetting;
  if (setting === undefined) return undefined;
  const flag = longFlagOf(option) ?? key;
  return {
    id: `${key}-applies`,
    field: key,
    check: (spec) => {
      if (spec[key] === undefined) return undefined;
      for (const p of protocolsOf(spec)) {
        const settings = p.definition?.settings as Readonly<Record<string, unknown>> | undefined;
        if (settings && settings[setting] === undefined) return `${flag} does not apply to ${p.benchmark} (protocol ${p.definition?.name})`;
      }
      return undefined;
    },
  };
}

/** The rules between run options, checked after the schema on every surface (CLI, HTTP API, sweeps). */
export const RUN_RULES: readonly OptionRule<SpecValues>[] = [
  {
    id: 'protocol-known',
    field: 'protocol',
    check: (spec) => {
      const unknown = protocolsOf(spec).find((p) => p.definition === undefined);
      return unknown && `unknown protocol "${String(spec.protocol)}" for ${unknown.benchmark} (protocols: ${unknown.names.join(', ')})`;
    },
  },
  ...Object.entries(RUN_OPTIONS).flatMap(([key, option]) => appliesToRule(key, option) ?? []),
];

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
