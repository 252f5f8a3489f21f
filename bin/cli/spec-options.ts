/**
 * The run-spec flags shared by `polyeval run` and `polyeval remote run`, and their
 * translation into the one RunSpec schema the CLI and the HTTP API validate with.
 */
import { type Command, Option } from 'commander';
import { InputError } from '#core/errors.ts';
import { parseRunSpec, type RunSpec } from '#core/run/spec.ts';
import { reference } from '#core/models/reference.ts';
import { GOLD_RULES, PROMPT_LANGUAGES, PromptStyleSchema, TIME_CLOCKS, type PromptStyle } from '#core/benchmarks/protocol.ts';
import { LikertModeChoiceSchema, type LikertModeChoice } from '#core/models/provider.ts';
import { CHAT_TEMPLATE_NAMES } from '#core/prompts/chat-templates.ts';
import { intOption, numberOption } from './options.ts';

export interface SpecFlags {
  /** Every `-b` given, in order (several: a sweep, `polyeval run` only). */
  benchmark?: string[];
  /** Every `-m` given, in order (none: `reference`). */
  model?: string[];
  n?: number;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  split?: string;
  limit?: number;
  language?: string;
  timeScale?: number;
  maxCost?: number;
  likertMode?: LikertModeChoice;
  /** false with `--no-early-stop`. */
  earlyStop?: boolean;
  kotlinLanguageVersion?: string;
  protocol?: string;
  rowLimits?: boolean;
  promptStyle?: PromptStyle;
  shots?: number;
  chatTemplate?: string;
  gold?: string;
  shotSeed?: number;
  promptLanguage?: string;
  timeClock?: string;
}

export function addSpecOptions(command: Command, text: { benchmark: string; model: string }): Command {
  return command
    .option('-b, --benchmark <spec>', `${text.benchmark} (repeatable: a sweep)`, repeatable)
    .option('-m, --model <provider>', `${text.model} (default: reference; repeatable: a sweep)`, repeatable)
    .option('-n, --n <count>', 'samples per task', intOption('--n', 1))
    .option('--temperature <t>', 'sampling temperature', numberOption('--temperature'))
    .option('--top-p <p>', 'nucleus sampling', numberOption('--top-p'))
    .option('--max-tokens <count>', 'max new tokens per sample', intOption('--max-tokens', 1))
    .option('--stop <sequence...>', 'stop sequences (replace the benchmark defaults)')
    .option('--seed <seed>', 'seed for sampling and bootstrap intervals', intOption('--seed', 0))
    .option('--split <split>', 'only tasks of this split (train, validation, test)')
    .option('--limit <count>', 'only the first N tasks', intOption('--limit', 1))
    .option('--language <language>', 'language of the requested code (c, cpp, python, kotlin, java, javascript; several: c,cpp,python)')
    .option('--time-scale <factor>', 'multiply every time limit (slow machines)', numberOption('--time-scale'))
    .option('--max-cost <usd>', 'stop cleanly before the estimated cost exceeds this (resumable)', numberOption('--max-cost'))
    .option('--no-early-stop', 'run every item even when the first 10 all end SE or all come back empty for the same reason (default: stop there, resumable)')
    .option('--kotlin-language-version <version>', 'kotlinc -language-version and -api-version (2.0 accepts APIs kotlinc ≥ 2.1 rejects; default for mxeval:)')
    .addOption(
      new Option(
        '--likert-mode <mode>',
        'ABRICOT: likelihood over 1–5, next-token log-probabilities, or a parsed digit (auto: the best the server supports)',
      ).choices(LikertModeChoiceSchema.options),
    )
    .option('--protocol <name>', "the benchmark's named protocol (default: its source's; see: polyeval list benchmarks)")
    .option('--row-limits', "io-tests: each row's own time limit instead of the protocol's fixed one")
    .addOption(
      new Option('--prompt-style <style>', 'send the prompt as one plain text (completion endpoints) or as chat messages').choices(PromptStyleSchema.options),
    )
    .option(
      '--shots <count>',
      "likert (ABRICOT): solved examples before each item, as lm-eval's --num_fewshot (default: the protocol's)",
      intOption('--shots', 0),
    )
    .addOption(
      new Option(
        '--gold <rule>',
        "likert (ABRICOT): gold digit rule (authors: min(4, round(5·mean)) + 1, Python's round; equal-bins: min(5, 1 + floor(5·mean)))",
      ).choices([...GOLD_RULES]),
    )
    .option('--shot-seed <seed>', "likert (ABRICOT): seed of lm-eval's few-shot draw (its fewshot_random_seed; default 1234)", intOption('--shot-seed', 0))
    .addOption(
      new Option('--chat-template <name>', 'ABRICOT paper: chat template rendered for raw-text (likelihood) calls (default: none)').choices([
        ...CHAT_TEMPLATE_NAMES,
      ]),
    )
    .addOption(
      new Option('--prompt-language <language>', "RoCode: language of the prompt's instructions (en: the paper's translation ablation)").choices([
        ...PROMPT_LANGUAGES,
      ]),
    )
    .addOption(
      new Option('--time-clock <clock>', 'io-tests: what the time limit measures (cpu: CPU time, the default; wall: elapsed time)').choices([...TIME_CLOCKS]),
    );
}

/** Collects a flag given several times (`-m a -m b`) into an array. */
function repeatable(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** True when the flags name several benchmarks or several models: a grid of runs. */
export function isSweep(flags: Pick<SpecFlags, 'benchmark' | 'model'>): boolean {
  return (flags.benchmark?.length ?? 0) > 1 || (flags.model?.length ?? 0) > 1;
}

/** Validates the flags with the shared schema; a bad value is an InputError naming the field. */
export function specFromFlags(flags: SpecFlags): RunSpec {
  if (isSweep(flags)) throw new InputError('several -b/-m make a sweep, which only `polyeval run` runs; give one of each here', { field: 'benchmark' });
  return gridFromFlags(flags)[0] as RunSpec;
}

/** One validated spec per benchmark × model (benchmark-major, in the order given). */
export function gridFromFlags(flags: SpecFlags): RunSpec[] {
  if (!flags.benchmark?.length) throw new InputError('missing -b/--benchmark (try: -b sample)', { field: 'benchmark' });
  const optional: Record<string, unknown> = {
    n: flags.n,
    temperature: flags.temperature,
    topP: flags.topP,
    maxTokens: flags.maxTokens,
    stop: flags.stop,
    seed: flags.seed,
    split: flags.split,
    limit: flags.limit,
    language: flags.language,
    timeScale: flags.timeScale,
    maxCostUsd: flags.maxCost,
    likertMode: flags.likertMode,
    // Only the opt-out is sent: a spec without it keeps the rule on.
    earlyStop: flags.earlyStop === false ? false : undefined,
    kotlinLanguageVersion: flags.kotlinLanguageVersion,
    protocol: flags.protocol,
    rowLimits: flags.rowLimits,
    promptStyle: flags.promptStyle,
    shots: flags.shots,
    chatTemplate: flags.chatTemplate,
    gold: flags.gold,
    shotSeed: flags.shotSeed,
    promptLanguage: flags.promptLanguage,
    timeClock: flags.timeClock,
  };
  const given = Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined));
  const models = flags.model?.length ? flags.model : [reference.scheme];
  return flags.benchmark.flatMap((benchmark) => models.map((model) => parseRunSpec({ benchmark, model, ...given }, 'command line')));
}
