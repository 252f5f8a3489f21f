/**
 * The batch APIs `--batch` can use, by provider scheme. An explicit array: adding one is a
 * client file plus one line here. A provider without an entry refuses `--batch` before any
 * call, naming the providers that have one.
 *
 * @example
 * const client = createBatchClient('openai:https://api.openai.com/v1#gpt-4o-mini', { apiKeyEnv: 'OPENAI_API_KEY' });
 */
import { InputError } from '#core/errors.ts';
import type { BatchClient } from '#core/models/index.ts';
// The provider registry first: openai.ts → capabilities.ts → registry.ts is a cycle that only
// resolves when the registry starts it (a bundle entered here would see `openai` undefined).
import '../registry.ts';
import { anthropic, anthropicBaseUrl, anthropicKeyEnv } from '../anthropic.ts';
import { bedrock } from '../bedrock.ts';
import { openai } from '../openai.ts';
import { resolveOptions, type ProviderOptions } from '../options.ts';
import { AnthropicBatchClient } from './anthropic-batch.ts';
import { OpenAiBatchClient } from './openai-batch.ts';

export interface BatchKind {
  /** The provider scheme whose models this batch API serves. */
  scheme: string;
  /** The provider's batch API, named in help and errors. */
  api: string;
  open(spec: string, rest: string, options: ProviderOptions): BatchClient;
}

export const BATCH_KINDS: readonly BatchKind[] = [
  {
    scheme: openai.scheme,
    api: 'OpenAI Batch API (/files + /batches)',
    open(spec, rest, options) {
      const parsed = openai.parse(spec, rest);
      return new OpenAiBatchClient(parsed.baseUrl, parsed.model, resolveOptions(options), openai.scheme);
    },
  },
  {
    scheme: anthropic.scheme,
    api: 'Anthropic Message Batches (/v1/messages/batches)',
    open(spec, rest, options) {
      const parsed = anthropic.parse(spec, rest);
      const resolved = resolveOptions(options);
      return new AnthropicBatchClient(anthropicBaseUrl(resolved), parsed.model, resolved, anthropicKeyEnv(resolved), anthropic.scheme);
    },
  },
];

/**
 * The batch API of a model spec, without opening it (no key read).
 * @throws InputError naming --batch when its provider has none here (Bedrock's: only in the cloud).
 */
export function batchKindOf(spec: string): BatchKind {
  const text = spec.trim();
  const colon = text.indexOf(':');
  const scheme = colon < 0 ? text : text.slice(0, colon);
  const kind = BATCH_KINDS.find((k) => k.scheme === scheme);
  if (scheme === bedrock.scheme)
    throw new InputError(
      '--batch: Bedrock batch inference reads its records from S3 and writes its answers there under a service role, which a local run does not have; run it in the cloud with `polyeval remote run --batch` (docs/aws.md), or locally without --batch',
      { field: 'batch' },
    );
  if (!kind)
    throw new InputError(
      `--batch: provider "${scheme}" has no batch API in polyeval (batch runs take: ${BATCH_KINDS.map((k) => `${k.scheme}: (${k.api})`).join(', ')})`,
      { field: 'batch' },
    );
  return kind;
}

/** The batch client of a model spec. @throws InputError naming --batch when its provider has no batch API here. */
export function createBatchClient(spec: string, options: ProviderOptions = {}): BatchClient {
  const text = spec.trim();
  return batchKindOf(text).open(text, text.slice(text.indexOf(':') + 1), options);
}
