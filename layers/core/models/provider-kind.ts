/**
 * What a provider says about itself (DESIGN §8): the scheme of its `-m` spec, how it is
 * created from the rest of the spec, what it costs and whom its answers come from, and —
 * as pure data — the IAM permissions the deployed pipeline's generate role needs to call it.
 * Every list of providers (`-m` help, `polyeval list providers`, the HTTP API's check, the
 * generate role's policy and its cdk-nag acknowledgements) derives from the registry of
 * these (layers/providers/registry.ts).
 *
 * @example
 * const kind: ProviderKind = { scheme: 'toy', usage: 'toy:<name>', description: 'a toy', argument: true, billed: false, answersWithReference: false, iam: [], create: (rest) => toyProvider(rest) };
 */
import type { Provider } from './provider.ts';

/** An ARN pattern of the stack's partition; region and account are the stack's, any or none. */
export interface ArnPattern {
  service: string;
  /** Resource part, e.g. `endpoint/*`. */
  resource: string;
  /** `stack`: the stack's Region; `any`: `*`; `none`: Region-less (empty). */
  region: 'stack' | 'any' | 'none';
  /** Whether the ARN carries the stack's account (otherwise empty). */
  account: boolean;
}

/** One IAM statement the generate role needs to call the provider. */
export interface IamGrant {
  sid: string;
  actions: readonly string[];
  /** `'*'`: the actions take no resource-level scope (e.g. AWS Marketplace's). */
  resources: readonly (ArnPattern | '*')[];
  /** `ArnLike` condition: the key's value must match one of these ARNs. */
  arnLike?: { key: string; arns: readonly ArnPattern[] };
}

/** What the host gives a provider while creating it. */
export interface ProviderCreateContext<O = unknown> {
  /** The whole spec, trimmed (the provider's id). */
  spec: string;
  /** Run options (`--region`, `--timeout`…): the network providers' `ProviderOptions`. */
  options: O;
  /** Reads a file the spec names: a local path on the CLI, an s3:// object in the cloud. */
  readText(path: string): Promise<string>;
}

/** A provider's self-description: one file per provider, one line in the registry. */
export interface ProviderKind<O = unknown> {
  /** `reference`, `bedrock`…: what `Provider.kind` holds and the spec starts with. */
  readonly scheme: string;
  /** The spec's form for help texts, e.g. `bedrock:<model-id>`. */
  readonly usage: string;
  /** The spec's form for the deployed pipeline when it differs (files live in S3). */
  readonly cloudUsage?: string;
  readonly description: string;
  /** Whether the spec is `<scheme>:<rest>` (otherwise the scheme alone). */
  readonly argument: boolean;
  /** Whether its calls cost money (priced from the price table, bounded by `--max-cost`). */
  readonly billed: boolean;
  /**
   * Whether the shipped price table's ids name its models (Bedrock model ids, OpenAI and
   * Anthropic model names), for every spec or for the spec given (`openai:` only at OpenAI's
   * own API). Not so for a deployment, endpoint or server the user named (Azure, SageMaker, a
   * vLLM server serving a model called `gpt-4o-mini`): those are priced only by `--prices` /
   * `--assume-price`.
   */
  readonly tablePriced?: boolean | ((spec: string) => boolean);
  /** Whether it answers with the dataset's canonical answers (trusted code, one sample per reference). */
  readonly answersWithReference: boolean;
  /** The run options it reads, for help texts (`region`, `endpoint-url`, `api-key-env`). */
  readonly options?: readonly string[];
  /** The generate role's statements to call it from the deployed pipeline. */
  readonly iam: readonly IamGrant[];
  /** Why the IAM resources are patterns (cdk-nag acknowledgement), when it has any. */
  readonly iamReason?: string;
  /** Rejects a spec the deployed pipeline cannot use (InputError naming the field). */
  checkCloud?(rest: string): void;
  /** The provider for `rest` (what follows `<scheme>:`; empty without argument). */
  create(rest: string, ctx: ProviderCreateContext<O>): Provider | Promise<Provider>;
}
