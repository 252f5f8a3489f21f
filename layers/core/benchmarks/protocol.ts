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
import { InputError } from '../errors.ts';
import type { GenerationParams } from '../models/provider.ts';

/** How the prompt reaches the model: one plain text (base models) or chat messages. */
export type PromptStyle = 'chat' | 'completion';

/** io-tests: one time limit for every test, or each row's own limit. */
export type TimeLimitRule = { kind: 'fixed'; ms: number } | { kind: 'row'; defaultMs: number };

/** likert: how the human mean on [0, 1] becomes the gold digit 1–5. */
export type GoldRule =
  /** Five equal bins: min(5, 1 + ⌊5·mean⌋) (the ABRICOT paper). */
  | 'equal-bins'
  /** min(4, round(5·mean)) + 1 with Python's round, half to even (the CALAMITA harness). */
  | 'round-half-even';

/** Everything a protocol fixes. Absent fields do not apply to the benchmark. */
export interface ProtocolSettings {
  /** Samples per task for providers that sample (`reference` and `replay` bring their own). */
  n: number;
  params: Pick<GenerationParams, 'temperature' | 'topP' | 'maxTokens' | 'stop'>;
  promptStyle: PromptStyle;
  /** Solved examples placed before the item (likert). */
  shots?: number;
  timeLimit?: TimeLimitRule;
  gold?: GoldRule;
  /** The metric the source reports first. */
  headline: string;
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
    settings.timeLimit = { kind: 'row', defaultMs: settings.timeLimit.ms };
    overrides.row_limits = true;
  }
  if (choice.promptStyle !== undefined && choice.promptStyle !== settings.promptStyle) {
    settings.promptStyle = choice.promptStyle;
    overrides.prompt_style = choice.promptStyle;
  }
  return benchmark.bind({ name: definition.name, settings, overrides });
}
