/**
 * The providers polyeval knows. An explicit array: adding a provider is one file plus one
 * line in {@link PROVIDER_REGISTRY}. Everything else that lists providers or switches on
 * them — `-m` parsing and its help, `polyeval list providers`, the network spec parser, the
 * HTTP API's model check, which providers are billed, the generate role's IAM statements and
 * their cdk-nag acknowledgements — derives from the kinds' own fields here.
 *
 * @example
 * findProviderKind('bedrock:amazon.nova-micro-v1:0')?.kind.billed; // true
 * const toy = createProviderRegistry([reference, myKind]); // a registry of one's own (tests)
 */
import type { ProviderKind } from '#core/models/index.ts';
import { reference } from '#core/models/index.ts';
import { replay } from '#core/models/index.ts';
import { anthropic } from './anthropic.ts';
import { azure } from './azure.ts';
import { bedrock } from './bedrock.ts';
import { gemini } from './gemini.ts';
import { gguf } from './gguf.ts';
import { mistral } from './mistral.ts';
import type { NetworkProviderKind } from './network-kind.ts';
import { ollama } from './ollama.ts';
import { openai } from './openai.ts';
import type { ProviderOptions } from './options.ts';
import { sagemaker } from './sagemaker.ts';

/** A spec's kind and what follows `<scheme>:`. */
export interface FoundKind {
  kind: ProviderKind<ProviderOptions>;
  rest: string;
}

/** A set of provider kinds and what derives from them. */
export interface ProviderRegistry {
  readonly kinds: readonly ProviderKind<ProviderOptions>[];
  readonly network: readonly NetworkProviderKind[];
  /** The kind a (trimmed) spec names, if any. */
  find(spec: string): FoundKind | undefined;
  /** The kind of a created provider (`Provider.kind`). */
  byScheme(scheme: string): ProviderKind<ProviderOptions> | undefined;
}

/**
 * A registry over `kinds`; the network ones are those with a `parse`.
 * @throws Error when two kinds share a scheme (a programming error).
 */
export function createProviderRegistry(kinds: readonly ProviderKind<ProviderOptions>[]): ProviderRegistry {
  const schemes = kinds.map((k) => k.scheme);
  const dup = schemes.find((s, i) => schemes.indexOf(s) !== i);
  if (dup !== undefined) throw new Error(`two providers have the scheme "${dup}"`);
  const byScheme = (scheme: string): ProviderKind<ProviderOptions> | undefined => kinds.find((k) => k.scheme === scheme);
  return {
    kinds,
    network: kinds.filter((k): k is NetworkProviderKind => 'parse' in k && 'open' in k),
    byScheme,
    find(spec) {
      const colon = spec.indexOf(':');
      const kind = byScheme(colon < 0 ? spec : spec.slice(0, colon));
      if (!kind || kind.argument !== colon >= 0) return undefined;
      return { kind, rest: colon < 0 ? '' : spec.slice(colon + 1) };
    },
  };
}

/** The kinds, in help order; `as const` keeps each kind's type, so the network spec type derives from this list. */
const KINDS = [reference, replay, bedrock, sagemaker, openai, anthropic, azure, ollama, gemini, gguf, mistral] as const;

export const PROVIDER_REGISTRY: ProviderRegistry = createProviderRegistry(KINDS as readonly ProviderKind<ProviderOptions>[]);

/** The parsed spec of every network kind of the registry (what `parse` returns), derived: no hand-kept list. */
export type RegisteredNetworkSpec = SpecOf<(typeof KINDS)[number]>;
type SpecOf<K> = K extends { parse(spec: string, rest: string): infer S } ? S : never;

/** Whether a created provider's calls cost money (unknown kinds: yes). */
export function isBilled(provider: { kind: string }): boolean {
  return PROVIDER_REGISTRY.byScheme(provider.kind)?.billed ?? true;
}

/**
 * Whether the shipped price table prices a created provider's models by their ids (see
 * `ProviderKind.tablePriced`); `id` is the full spec (`Provider.id`, a manifest's `model.spec`).
 */
export function isTablePriced(provider: { kind: string; id: string }): boolean {
  const priced = PROVIDER_REGISTRY.byScheme(provider.kind)?.tablePriced ?? false;
  return typeof priced === 'function' ? priced(provider.id) : priced;
}

/** The schemes whose providers read a run option (`region`, `endpoint-url`, `api-key-env`), as `a:/b:` for help texts. */
export function schemesReading(option: string): string {
  return PROVIDER_REGISTRY.kinds
    .filter((k) => k.options?.includes(option))
    .map((k) => `${k.scheme}:`)
    .join('/');
}
