/**
 * Bedrock batch inference as a batch client: the records are written as one JSONL file to
 * the run's bucket, a model invocation job reads it (`CreateModelInvocationJob`, Converse
 * format, under a service role that may read and write only those prefixes), is polled
 * (`GetModelInvocationJob`) and its `.jsonl.out` is read back by `recordId`;
 * `StopModelInvocationJob` cancels. Not yet offered by `--batch` (locally or remote): the
 * deployed pipeline's plan, role and polling stage are still to be built (issue 20).
 *
 * What it follows (Amazon Bedrock User Guide, read 2026-12): "Format and upload your batch
 * inference data" (each line `{recordId, modelInput}`; with `modelInvocationType: Converse`
 * the `modelInput` is a Converse request body); "View the results of a batch inference job"
 * (one `<input file>.out` per input file under `<output s3Uri>/<job id>/`, each line the record
 * with `modelOutput` — the Converse response — or an `error` object `{errorCode,
 * errorMessage}` in its place, plus `manifest.json.out` with the job's counts); "Monitor batch
 * inference jobs" (status Submitted → Validating → Scheduled → InProgress → Completed |
 * PartiallyCompleted | Failed | Stopping → Stopped | Expired; a job that outlives
 * `timeoutDurationInHours` expires, keeping the outputs it wrote); the quotas (bedrock-quotas.ts)
 * are account settings, so they are options here with AWS's defaults.
 */
import type { BedrockClient } from '@aws-sdk/client-bedrock';
import {
  CreateModelInvocationJobCommand,
  GetModelInvocationJobCommand,
  ListModelInvocationJobsCommand,
  StopModelInvocationJobCommand,
} from '@aws-sdk/client-bedrock';
import { createHash } from 'node:crypto';
import type { BatchClient, BatchJobStatus, BatchLimits, BatchRecord, BatchResult } from '#core/models/index.ts';
import type { Generation, GenerationParams } from '#core/models/index.ts';
import type { BlobStore } from '#core/ports.ts';
// The provider registry first: bedrock.ts → capabilities.ts → registry.ts is a cycle that only
// resolves when the registry starts it (as in batch/registry.ts).
import '../registry.ts';
import { converseInput, readConverse } from '../bedrock.ts';
import { bedrockBatchLimits, bedrockTimeoutHours } from './bedrock-quotas.ts';
import { adaptParams, capabilitiesOf, cutAtStops, type CapabilityTable, type ModelCapabilities } from '../capabilities.ts';

/** AWS's default quotas as one job's limits (bedrock-quotas.ts). */
export const BEDROCK_BATCH_LIMITS: BatchLimits = bedrockBatchLimits();

/** The Bedrock control-plane client a batch job is created, polled and stopped with. */
export type BedrockControlClient = Pick<BedrockClient, 'send'>;

export interface BedrockBatchOptions {
  /** The bucket the job's input and output live in (its `locate` gives the s3:// URI). */
  store: BlobStore;
  /** Key prefix of every job's files, e.g. `batch-inference/` (the service role may use only it). */
  prefix: string;
  /** The service role Bedrock assumes to read the input and write the output. */
  roleArn: string;
  bedrock: BedrockControlClient;
  capabilities: CapabilityTable;
  /** The provider scheme whose capability rules apply (the bedrock kind's). */
  scheme: string;
  /** `timeoutDurationInHours` (24–168; AWS's default 168). */
  timeoutHours?: number;
  /** The account's quotas, where they differ from AWS's defaults. */
  limits?: Partial<BatchLimits>;
}

const STATUSES = ['Submitted', 'Validating', 'Scheduled', 'InProgress', 'Completed', 'PartiallyCompleted', 'Failed', 'Stopping', 'Stopped', 'Expired'] as const;

export class BedrockBatchClient implements BatchClient {
  readonly kind = 'bedrock-batch-inference';
  readonly limits: BatchLimits;
  readonly #caps: ModelCapabilities;

  constructor(
    readonly modelId: string,
    private readonly opts: BedrockBatchOptions,
  ) {
    this.limits = { ...BEDROCK_BATCH_LIMITS, ...opts.limits };
    this.#caps = capabilitiesOf(opts.capabilities, opts.scheme, modelId);
  }

  /** One record: its id and the Converse body an on-demand call would send. */
  encode(record: BatchRecord): string {
    if (!/^[A-Za-z0-9]+$/.test(record.recordId)) throw new Error(`recordId ${JSON.stringify(record.recordId)} is not alphanumeric`);
    return JSON.stringify({ recordId: record.recordId, modelInput: converseInput(this.#caps, record.request).input });
  }

  /** The answer cut at the stop sequences the model refuses (not sent), as the on-demand call cuts it. */
  finish(generation: Generation, params: GenerationParams): Generation {
    const { clientStops } = adaptParams(this.#caps, params);
    return clientStops.length > 0 ? { ...generation, text: cutAtStops(generation.text, clientStops) } : generation;
  }

  async submit(lines: readonly string[], key: string): Promise<string> {
    const dir = this.#dir(key);
    await this.opts.store.put(`${dir}input.jsonl`, `${lines.join('\n')}\n`, 'application/jsonl');
    const out = await this.opts.bedrock.send(
      new CreateModelInvocationJobCommand({
        jobName: jobNameOf(key),
        // The same token for the same job: a retried create is ignored rather than run twice ("Ensuring idempotency").
        clientRequestToken: hash(key).slice(0, 32),
        roleArn: this.opts.roleArn,
        modelId: this.modelId,
        modelInvocationType: 'Converse',
        inputDataConfig: { s3InputDataConfig: { s3InputFormat: 'JSONL', s3Uri: this.opts.store.locate(`${dir}input.jsonl`) } },
        outputDataConfig: { s3OutputDataConfig: { s3Uri: this.opts.store.locate(`${dir}output/`) } },
        timeoutDurationInHours: bedrockTimeoutHours(this.opts.timeoutHours),
      }),
    );
    if (!out.jobArn) throw new Error('CreateModelInvocationJob returned no jobArn');
    return out.jobArn;
  }

  /** The job created for `key` (its name), unless it failed validation. */
  async find(key: string): Promise<string | undefined> {
    const name = jobNameOf(key);
    const out = await this.opts.bedrock.send(new ListModelInvocationJobsCommand({ nameContains: name, maxResults: 100 }));
    return out.invocationJobSummaries?.find((j) => j.jobName === name && j.status !== 'Failed')?.jobArn;
  }

  async status(jobArn: string): Promise<BatchJobStatus> {
    const job = await this.opts.bedrock.send(new GetModelInvocationJobCommand({ jobIdentifier: jobArn }));
    const status = STATUSES.find((s) => s === job.status);
    if (!status) throw new Error(`unknown batch inference job status ${String(job.status)}`);
    const counts = { total: job.totalRecordCount ?? 0, succeeded: job.successRecordCount ?? 0, failed: job.errorRecordCount ?? 0 };
    const base = { providerStatus: status, counts, ...(job.jobExpirationTime ? { expiresAt: job.jobExpirationTime.toISOString() } : {}) };
    const reason = job.message ? { reason: job.message } : {};
    switch (status) {
      case 'Submitted':
      case 'Validating':
      case 'Scheduled':
        return { ...base, phase: 'queued' };
      case 'InProgress':
        return { ...base, phase: 'running' };
      case 'Stopping':
        return { ...base, phase: 'cancelling' };
      case 'Completed':
      case 'PartiallyCompleted':
        return { ...base, phase: 'ended', ending: 'completed' };
      case 'Failed':
        return { ...base, phase: 'ended', ending: 'failed', reason: job.message ?? 'the job failed' };
      case 'Stopped':
        return { ...base, phase: 'ended', ending: 'cancelled', ...reason };
      case 'Expired':
        return {
          ...base,
          phase: 'ended',
          ending: 'expired',
          reason: job.message ?? `the job did not finish within ${job.timeoutDurationInHours ?? 168} hours`,
        };
      default: {
        const never: never = status;
        throw new Error(`unknown status ${String(never)}`);
      }
    }
  }

  /** Every record of the job's output file: a Converse answer, or the error that replaced it. */
  async results(jobArn: string): Promise<BatchResult[]> {
    const job = await this.opts.bedrock.send(new GetModelInvocationJobCommand({ jobIdentifier: jobArn }));
    const outputUri = job.outputDataConfig?.s3OutputDataConfig?.s3Uri;
    const inputUri = job.inputDataConfig?.s3InputDataConfig?.s3Uri;
    if (!outputUri || !inputUri) throw new Error(`batch inference job ${jobArn} names no input or output location`);
    const jobId = jobArn.slice(jobArn.lastIndexOf('/') + 1);
    const file = inputUri.slice(inputUri.lastIndexOf('/') + 1);
    const text = await this.opts.store.getText(`${this.#keyOf(outputUri).replace(/\/?$/, '/')}${jobId}/${file}.out`);
    if (text === undefined) return [];
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => resultOf(JSON.parse(l) as OutputLine));
  }

  async cancel(jobArn: string): Promise<void> {
    await this.opts.bedrock.send(new StopModelInvocationJobCommand({ jobIdentifier: jobArn }));
  }

  #dir(key: string): string {
    return `${this.opts.prefix.replace(/\/?$/, '/')}${jobNameOf(key)}/`;
  }

  /** The store key of an s3:// URI inside the store's bucket. */
  #keyOf(uri: string): string {
    const root = this.opts.store.locate('');
    if (!uri.startsWith(root)) throw new Error(`${uri} is outside ${root}`);
    return uri.slice(root.length);
  }
}

interface OutputLine {
  recordId?: string;
  modelOutput?: unknown;
  error?: { errorCode?: number | string; errorMessage?: string };
}

function resultOf(line: OutputLine): BatchResult {
  const recordId = String(line.recordId ?? '');
  if (line.error || line.modelOutput === undefined)
    return { recordId, ok: false, error: `${line.error?.errorCode ?? 'error'}: ${line.error?.errorMessage ?? 'no modelOutput'}` };
  try {
    const answer = readConverse(line.modelOutput as Parameters<typeof readConverse>[0]);
    return { recordId, ok: true, generation: { ...answer, latencyMs: 0, attempts: 1 } };
  } catch (error) {
    return { recordId, ok: false, error: `malformed modelOutput: ${(error as Error).message}` };
  }
}

/** A job name Bedrock takes (`[a-zA-Z0-9](-*[a-zA-Z0-9+\-.])*`, ≤ 63): readable head of the key plus its hash. */
export function jobNameOf(key: string): string {
  const head = key
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  return `${head}-${hash(key).slice(0, 16)}`.replace(/^-/, 'j');
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
