/**
 * The batch port: a provider's batch API (OpenAI Batch, Anthropic Message Batches, Bedrock
 * batch inference) seen as one thing — submit records, poll the job, read results by record
 * id, cancel. The run's batch stage (run/batch-stage.ts) drives it; adapters live in
 * layers/providers/batch/. A job is the provider's, not ours: it outlives the process, so
 * everything a resume needs (the job id, which record is which item) is stored before polling.
 *
 * @example
 * const lines = records.map((r) => client.encode(r));
 * const jobId = await client.submit(lines, 'run-1/batch-0');
 * const status = await client.status(jobId);          // { phase: 'running', counts: { … } }
 * if (status.phase === 'ended') for (const r of await client.results(jobId)) …;
 */
import type { TokenUsage } from '../types.ts';
import type { GenerateRequest, Generation, GenerationParams } from './provider.ts';

/** Where a job is, across providers: the provider's own word is kept in `providerStatus`. */
export const BATCH_PHASES = ['queued', 'running', 'finishing', 'cancelling', 'ended'] as const;
export type BatchPhase = (typeof BATCH_PHASES)[number];

/** How an ended job ended: every record done, the job refused, the window passed, or stopped. */
export const BATCH_ENDINGS = ['completed', 'failed', 'expired', 'cancelled'] as const;
export type BatchEnding = (typeof BATCH_ENDINGS)[number];

/** Records of a job by outcome so far. */
export interface BatchCounts {
  total: number;
  succeeded: number;
  failed: number;
}

export interface BatchJobStatus {
  phase: BatchPhase;
  /** Set once `phase` is `ended`. */
  ending?: BatchEnding;
  /** The provider's status word (`in_progress`, `ended`, `InProgress`, …), shown to the user as is. */
  providerStatus: string;
  counts: BatchCounts;
  /** Why the job failed or stopped, in the provider's words. */
  reason?: string;
  /** When the provider gives up on the job (ISO 8601), when it says. */
  expiresAt?: string;
}

/** One generation request of a job, under the record id that finds its result again. */
export interface BatchRecord {
  recordId: string;
  request: GenerateRequest;
}

/** A record's result: its generation, or the provider's reason it has none (and what it billed anyway). */
export type BatchResult = { recordId: string; ok: true; generation: Generation } | { recordId: string; ok: false; error: string; billed?: TokenUsage };

/** What one job may hold, as the provider documents it. */
export interface BatchLimits {
  maxRecords: number;
  /** Bytes of the encoded input (JSONL, UTF-8). */
  maxBytes: number;
  /** Fewest records a job takes (Bedrock); 1 when the provider sets none. */
  minRecords: number;
  /** Jobs of one model that may be submitted or in progress at once (Bedrock's per-model quota); absent: no limit documented. */
  maxJobsInFlight?: number;
  /**
   * Input tokens of one model that may be enqueued at once across the jobs in progress
   * (OpenAI's batch queue limit: over it a job fails `token_limit_exceeded`); absent: none.
   */
  maxEnqueuedTokens?: number;
}

export interface BatchClient {
  /** e.g. `openai-batch`; recorded with each job. */
  readonly kind: string;
  readonly limits: BatchLimits;
  /** A record as one JSONL line of the provider's input format. */
  encode(record: BatchRecord): string;
  /** The input tokens a record counts against `limits.maxEnqueuedTokens` (an estimate). */
  enqueuedTokens?(record: BatchRecord): number;
  /** Uploads the lines and creates the job; `key` tags it so {@link find} can find it again. Returns the job id. */
  submit(lines: readonly string[], key: string): Promise<string>;
  /** The id of a job created with `key`, when the provider can search by tag (a kill between create and record). */
  find?(key: string): Promise<string | undefined>;
  status(jobId: string): Promise<BatchJobStatus>;
  /** Every result the ended job has, by record id (records it never reached may be missing). */
  results(jobId: string): Promise<BatchResult[]>;
  cancel(jobId: string): Promise<void>;
  /**
   * What the on-demand provider does to an answer after its call, for a result read back
   * under the run's `params` (e.g. cutting at stop sequences the model would refuse, which
   * were therefore not sent). Absent: the result is the answer as is.
   */
  finish?(generation: Generation, params: GenerationParams): Generation;
}
