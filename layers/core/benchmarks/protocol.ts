/**
 * Protocols (DESIGN §8): the named recipes a benchmark can be evaluated by — the prompt, the
 * sampling settings, limits, gold rule and headline metric its source used. Each benchmark
 * lists its protocols, its source's first (the default); `--protocol <name>` picks another;
 * single flags (`-n`, `--temperature`, `--row-limits`, `--prompt-style`, …) override single
 * settings, and the manifest records the protocol with every override.
 *
 * @example
 * const bound = bindProtocol(abricot, { protocol: 'calamita' });
 * bound.protocol.name;                 // 'calamita'
 * bound.protocol.settings.headline;    // 'accuracy'
 */
import { z } from 'zod';
import { InputError } from '../errors.ts';
import type { GenerationParams } from '../models/index.ts';
import { PROMPT_LANGUAGES, PROMPT_STYLES, TIME_CLOCKS, type PromptLanguage, type PromptStyle, type TimeClock } from '../types.ts';
import { CHAT_TEMPLATE_NAMES, type ChatTemplateName } from '../prompts/index.ts';

/** How the prompt reaches the model (types.ts names the styles). */
export const PromptStyleSchema = z.enum(PROMPT_STYLES);
export { PROMPT_LANGUAGES, TIME_CLOCKS, type PromptLanguage, type PromptStyle, type TimeClock };

/** io-tests: one time limit for every test, or each row's own limit; `clock` says what it measures (default cpu). */
export type TimeLimitRule = ({ kind: 'fixed'; ms: number } | { kind: 'row'; defaultMs: number }) & { clock?: TimeClock };

/** likert: how the human mean on [0, 1] becomes the gold digit 1–5. */
export const GOLD_RULES = ['authors', 'equal-bins'] as const;
export type GoldRule =
  /** min(4, round(5·mean)) + 1 with Python's round, half to even (the ABRICOT authors' task, and CALAMITA's). */
  | 'authors'
  /** Five equal bins: min(5, 1 + ⌊5·mean⌋) (polyeval's former reading of the paper's "discretized"). */
  | 'equal-bins';

/** Everything a protocol fixes. Absent fields do not apply to the benchmark. */
export interface ProtocolSettings {
  /** Samples per task for providers that sample (`reference` and `replay` bring their own). */
  n: number;
  params: Pick<GenerationParams, 'temperature' | 'topP' | 'maxTokens' | 'stop'>;
  promptStyle: PromptStyle;
  /** Solved examples placed before the item (likert; lm-eval's `--num_fewshot`). */
  shots?: number;
  /** likert: the seed of lm-eval's few-shot draw (its `fewshot_random_seed`, default 1234). */
  shotSeed?: number;
  /** likert chat prompts: the chat template polyeval renders for raw-text calls (`none`: turns flattened). */
  chatTemplate?: ChatTemplateName;
  /** io-tests: language of the prompt's instructions (RoCode: `ro`, the paper's; `en`, its ablation). */
  promptLanguage?: PromptLanguage;
  timeLimit?: TimeLimitRule;
  /** io-tests: each row's own memory limit (`row`), or one limit for every test (`fixed`, MB). */
  memoryLimit?: { kind: 'row' } | { kind: 'fixed'; mb: number };
  gold?: GoldRule;
  /** The metric the source reports first. */
  headline: string;
  /** The code (repository, commit, path) or text the protocol reproduces. */
  source?: string;
  /** What this protocol knowingly reproduces of a flawed source, and what it leaves out (one line each). */
  knownDefects?: readonly string[];
}

/** One named protocol of a benchmark. */
export interface ProtocolDefinition {
  name: string;
  /** One line: where the recipe comes from and what it does. */
  description: string;
  settings: ProtocolSettings;
}

/** What the user asked for on the command line (or in the API request). */
export interface ProtocolChoice {
  protocol?: string;
  /** io-tests: use each row's own time limit instead of the protocol's fixed one. */
  rowLimits?: boolean;
  promptStyle?: PromptStyle;
  /** likert: solved examples before each item. */
  shots?: number;
  /** likert: chat template for raw-text calls. */
  chatTemplate?: ChatTemplateName;
  /** likert: how the human mean becomes the gold digit. */
  gold?: GoldRule;
  /** likert: seed of the few-shot draw. */
  shotSeed?: number;
  /** io-tests: language of the prompt's instructions. */
  promptLanguage?: PromptLanguage;
  /** io-tests: what the time limit measures. */
  timeClock?: TimeClock;
}

/** The protocol a run follows: its name, its settings after overrides, and the overrides. */
export interface RunProtocol {
  name: string;
  settings: ProtocolSettings;
  /** Setting → value the user gave in place of the protocol's (flag names in snake_case). */
  overrides: Record<string, unknown>;
}

/** A benchmark adapter that can be re-bound to another protocol. */
export interface ProtocolBound<B> {
  readonly protocols: readonly ProtocolDefinition[];
  /** The protocol this adapter follows. */
  readonly protocol: RunProtocol;
  /** The same benchmark following `protocol`. */
  bind(protocol: RunProtocol): B;
}

/** The default protocol of a list (its first), with no overrides. */
export function defaultProtocol(protocols: readonly ProtocolDefinition[]): RunProtocol {
  const first = protocols[0];
  if (!first) throw new Error('a benchmark needs at least one protocol');
  return { name: first.name, settings: first.settings, overrides: {} };
}

/**
 * Resolves `choice` against a benchmark's protocols and binds the benchmark to the result.
 * @throws InputError (field `protocol`) naming the benchmark's protocols when the name is unknown.
 */
export function bindProtocol<B extends ProtocolBound<B> & { id: string }>(benchmark: B, choice: ProtocolChoice = {}): B {
  const names = benchmark.protocols.map((p) => p.name);
  const definition = choice.protocol === undefined ? benchmark.protocols[0] : benchmark.protocols.find((p) => p.name === choice.protocol);
  if (!definition) {
    throw new InputError(`unknown protocol "${choice.protocol}" for ${benchmark.id} (protocols: ${names.join(', ')})`, { field: 'protocol' });
  }
  const settings: ProtocolSettings = { ...definition.settings, params: { ...definition.settings.params } };
  const overrides: Record<string, unknown> = {};
  if (choice.rowLimits && settings.timeLimit?.kind === 'fixed') {
    settings.timeLimit = { kind: 'row', defaultMs: settings.timeLimit.ms, ...(settings.timeLimit.clock ? { clock: settings.timeLimit.clock } : {}) };
    overrides.row_limits = true;
  }
  if (choice.promptStyle !== undefined && choice.promptStyle !== settings.promptStyle) {
    settings.promptStyle = choice.promptStyle;
    overrides.prompt_style = choice.promptStyle;
  }
  applyExtraChoices(benchmark.id, definition.name, choice, settings, overrides);
  return benchmark.bind({ name: definition.name, settings, overrides });
}

/** A setting the protocol does not have is refused, naming the flag, rather than silently ignored. */
function notApplicable(benchmarkId: string, protocol: string, flag: string, field: string): InputError {
  return new InputError(`${flag} does not apply to ${benchmarkId} (protocol ${protocol})`, { field });
}

/** `--shots`, `--gold`, `--shot-seed`, `--chat-template`, `--prompt-language`, `--time-clock`: each checked against the protocol, recorded as an override when it changes a setting. */
function applyExtraChoices(
  benchmarkId: string,
  protocol: string,
  choice: ProtocolChoice,
  settings: ProtocolSettings,
  overrides: Record<string, unknown>,
): void {
  if (choice.shots !== undefined) {
    if (settings.shots === undefined) throw notApplicable(benchmarkId, protocol, '--shots', 'shots');
    if (!Number.isInteger(choice.shots) || choice.shots < 0)
      throw new InputError(`--shots must be a whole number ≥ 0, got ${choice.shots}`, { field: 'shots' });
    if (choice.shots !== settings.shots) overrides.shots = choice.shots;
    settings.shots = choice.shots;
  }
  if (choice.gold !== undefined) {
    if (settings.gold === undefined) throw notApplicable(benchmarkId, protocol, '--gold', 'gold');
    if (!(GOLD_RULES as readonly string[]).includes(choice.gold)) {
      throw new InputError(`unknown gold rule "${String(choice.gold)}" (rules: ${GOLD_RULES.join(', ')})`, { field: 'gold' });
    }
    if (choice.gold !== settings.gold) overrides.gold = choice.gold;
    settings.gold = choice.gold;
  }
  if (choice.shotSeed !== undefined) {
    if (settings.shotSeed === undefined) throw notApplicable(benchmarkId, protocol, '--shot-seed', 'shotSeed');
    if (!Number.isSafeInteger(choice.shotSeed)) throw new InputError(`--shot-seed must be a whole number, got ${choice.shotSeed}`, { field: 'shotSeed' });
    if (choice.shotSeed !== settings.shotSeed) overrides.shot_seed = choice.shotSeed;
    settings.shotSeed = choice.shotSeed;
  }
  if (choice.chatTemplate !== undefined) {
    if (settings.chatTemplate === undefined) throw notApplicable(benchmarkId, protocol, '--chat-template', 'chatTemplate');
    if (!(CHAT_TEMPLATE_NAMES as readonly string[]).includes(choice.chatTemplate)) {
      throw new InputError(`unknown chat template "${choice.chatTemplate}" (templates: ${CHAT_TEMPLATE_NAMES.join(', ')})`, { field: 'chatTemplate' });
    }
    if (choice.chatTemplate !== settings.chatTemplate) overrides.chat_template = choice.chatTemplate;
    settings.chatTemplate = choice.chatTemplate;
  }
  if (choice.promptLanguage !== undefined) {
    if (settings.promptLanguage === undefined) throw notApplicable(benchmarkId, protocol, '--prompt-language', 'promptLanguage');
    if (choice.promptLanguage !== settings.promptLanguage) overrides.prompt_language = choice.promptLanguage;
    settings.promptLanguage = choice.promptLanguage;
  }
  if (choice.timeClock !== undefined) {
    if (settings.timeLimit === undefined) throw notApplicable(benchmarkId, protocol, '--time-clock', 'timeClock');
    if (choice.timeClock !== (settings.timeLimit.clock ?? 'cpu')) overrides.time_clock = choice.timeClock;
    settings.timeLimit = { ...settings.timeLimit, clock: choice.timeClock };
  }
}
