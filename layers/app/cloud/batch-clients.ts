/**
 * The batch clients of a cloud run (`remote run --batch`), by the run's provider scheme:
 * Bedrock batch inference (its input and output in the run bucket's `batch-inference/`
 * prefix, under the deployment's service role), and the OpenAI and Anthropic batch clients
 * `polyeval run --batch` uses locally, with the keys the function's environment holds.
 */
import type { BedrockControlClient } from '#providers/batch/bedrock-batch.ts';
import { InputError } from '#core/errors.ts';
import type { BatchClient } from '#core/models/index.ts';
import type { BlobStore } from '#core/ports.ts';
import { shippedCapabilityTable } from '#providers/index.ts';
import type { ProviderOptions } from '#providers/index.ts';
import { BEDROCK_BATCH_QUOTAS, bedrockBatchLimits, type BedrockBatchQuotas } from '#providers/index.ts';
import { BATCH_KINDS, createBatchClient } from '#providers/batch/registry.ts';
import { bedrock } from '#providers/index.ts';

/** The bucket prefix every Bedrock job's input and output lives under (the service role may use only it). */
export const BEDROCK_BATCH_PREFIX = 'batch-inference/';

export interface CloudBatchSettings {
  /** The run bucket. */
  store: BlobStore;
  /** The role Bedrock assumes to read the input and write the output (the deployment's BATCH_ROLE_ARN). */
  bedrockRoleArn?: string;
  /** The Bedrock control-plane client (functions/batch/deps.ts builds it; layers/app calls no AWS SDK itself). */
  bedrockControl?: () => Promise<BedrockControlClient>;
  /** The account's Bedrock batch quotas where they differ from AWS's defaults. */
  quotas?: Partial<BedrockBatchQuotas>;
  /** A Bedrock job's `timeoutDurationInHours`. */
  timeoutHours?: number;
  /** Options of the OpenAI and Anthropic clients (the function's environment by default). */
  providerOptions?: ProviderOptions;
}

/** The schemes `remote run --batch` takes. */
export const CLOUD_BATCH_SCHEMES: readonly string[] = [bedrock.scheme, ...BATCH_KINDS.map((k) => k.scheme)];

function schemeOf(spec: string): { scheme: string; rest: string } {
  const text = spec.trim();
  const colon = text.indexOf(':');
  return colon < 0 ? { scheme: text, rest: '' } : { scheme: text.slice(0, colon), rest: text.slice(colon + 1) };
}

/** @throws InputError naming `batch` when the model's provider has no batch API in the cloud. */
export function checkCloudBatch(spec: string): void {
  const { scheme } = schemeOf(spec);
  if (!CLOUD_BATCH_SCHEMES.includes(scheme))
    throw new InputError(
      `batch: provider "${scheme}" has no batch API in polyeval (remote batch runs take: ${CLOUD_BATCH_SCHEMES.map((s) => `${s}:`).join(', ')})`,
      {
        field: 'batch',
      },
    );
}

/** Fewest records one job of this model may hold (Bedrock's quota; 1 elsewhere). */
export function cloudBatchMinRecords(spec: string, quotas: Partial<BedrockBatchQuotas> = {}): number {
  return schemeOf(spec).scheme === bedrock.scheme ? bedrockBatchLimits(quotas).minRecords : 1;
}

/**
 * The longest a batch job of this model may take: Bedrock's job timeout (`timeoutDurationInHours`,
 * 168 by default), the 24-hour window of OpenAI's Batch API (`completion_window: "24h"`) and of
 * Anthropic's Message Batches (a batch not done within 24 hours expires).
 */
export function cloudBatchWindowHours(spec: string, timeoutHours?: number): number {
  return schemeOf(spec).scheme === bedrock.scheme ? (timeoutHours ?? BEDROCK_BATCH_QUOTAS.maxTimeoutHours) : 24;
}

export async function createCloudBatchClient(spec: string, settings: CloudBatchSettings): Promise<BatchClient> {
  checkCloudBatch(spec);
  const { scheme, rest } = schemeOf(spec);
  if (scheme !== bedrock.scheme) return createBatchClient(spec, settings.providerOptions ?? {});
  const { modelId } = bedrock.parse(spec.trim(), rest);
  if (!settings.bedrockRoleArn) throw new Error('this deployment has no Bedrock batch service role (BATCH_ROLE_ARN)');
  if (!settings.bedrockControl) throw new Error('this deployment passes no Bedrock control-plane client to the batch stage');
  const sdk = await settings.bedrockControl();
  // Loaded here: the api and plan functions check batch specs without the Bedrock control-plane SDK.
  const { BedrockBatchClient } = await import('#providers/batch/bedrock-batch.ts');
  return new BedrockBatchClient(modelId, {
    store: settings.store,
    prefix: BEDROCK_BATCH_PREFIX,
    roleArn: settings.bedrockRoleArn,
    bedrock: sdk,
    capabilities: shippedCapabilityTable(),
    scheme: bedrock.scheme,
    limits: bedrockBatchLimits(settings.quotas),
    ...(settings.timeoutHours !== undefined ? { timeoutHours: settings.timeoutHours } : {}),
  });
}

/** `BATCH_QUOTAS` (JSON, e.g. `{"minRecordsPerJob":1}`) as quotas. @throws Error naming the variable. */
export function quotasFromEnv(env: NodeJS.ProcessEnv): Partial<BedrockBatchQuotas> {
  const text = env.BATCH_QUOTAS?.trim();
  if (!text) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`BATCH_QUOTAS is not JSON: ${text}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('BATCH_QUOTAS must be a JSON object of quota: number');
  const unknown = Object.keys(parsed).filter((k) => !(k in BEDROCK_BATCH_QUOTAS));
  if (unknown.length > 0)
    throw new Error(`BATCH_QUOTAS names no Bedrock batch quota: ${unknown.join(', ')} (quotas: ${Object.keys(BEDROCK_BATCH_QUOTAS).join(', ')})`);
  bedrockBatchLimits(parsed as Partial<BedrockBatchQuotas>);
  return parsed as Partial<BedrockBatchQuotas>;
}
