/**
 * Amazon Bedrock's batch inference quotas, as one table: what a job polyeval creates must fit.
 * They are account settings (Service Quotas, service "Amazon Bedrock"), so these are AWS's
 * defaults; a deployment whose account has other values passes them (`-c batchQuotas=…`,
 * docs/aws.md) and {@link bedrockBatchLimits} merges them over the defaults.
 *
 * Sources (read 2026-12):
 * - "Format and upload your batch inference data", Amazon Bedrock User Guide
 *   (https://docs.aws.amazon.com/bedrock/latest/userguide/batch-inference-data.html): the
 *   quotas a job's input must conform to — minimum number of records per batch inference job,
 *   records per input file per job, records per job, batch inference input file size, batch
 *   inference job size — are looked up in Service Quotas.
 * - "Amazon Bedrock endpoints and quotas", AWS General Reference
 *   (https://docs.aws.amazon.com/general/latest/gr/bedrock.html#limits_bedrock): the default
 *   values below (per model, per Region).
 * - CreateModelInvocationJob, Amazon Bedrock API Reference: `timeoutDurationInHours` 24–168
 *   (default 168).
 * - "Automate Amazon Bedrock batch inference" (AWS Machine Learning Blog): jobs submitted or in
 *   progress are limited per model per Region (10 by default), which is why a large run's jobs
 *   are created as slots free up rather than all at once.
 */
import type { BatchLimits } from '#core/models/index.ts';

export const BEDROCK_BATCH_QUOTAS = {
  /** "Minimum number of records per batch inference job". */
  minRecordsPerJob: 100,
  /** "Records per batch inference job". */
  maxRecordsPerJob: 50_000,
  /** "Records per input file per batch inference job" (polyeval writes one input file per job). */
  maxRecordsPerInputFile: 50_000,
  /** "Batch inference input file size" (bytes). */
  maxInputFileBytes: 1024 ** 3,
  /** "Batch inference job size" (bytes, all of a job's input files). */
  maxJobBytes: 5 * 1024 ** 3,
  /** "Sum of in-progress and submitted batch inference jobs using a base model", per model. */
  maxJobsInFlightPerModel: 10,
  /** `timeoutDurationInHours` bounds and default. */
  minTimeoutHours: 24,
  maxTimeoutHours: 168,
  defaultTimeoutHours: 168,
} as const;

export type BedrockBatchQuotas = { -readonly [K in keyof typeof BEDROCK_BATCH_QUOTAS]: number };

/**
 * The limits one polyeval job must keep: one input file per job, so the file's limits and the
 * job's both apply (the smaller wins).
 */
export function bedrockBatchLimits(overrides: Partial<BedrockBatchQuotas> = {}): BatchLimits {
  const q = { ...BEDROCK_BATCH_QUOTAS, ...overrides };
  for (const [name, value] of Object.entries(q))
    if (!Number.isInteger(value) || value < 1) throw new Error(`Bedrock batch quota ${name} must be a positive integer, got ${String(value)}`);
  if (q.minRecordsPerJob > Math.min(q.maxRecordsPerJob, q.maxRecordsPerInputFile))
    throw new Error(`Bedrock batch quota minRecordsPerJob (${q.minRecordsPerJob}) is above the records a job may hold`);
  return {
    minRecords: q.minRecordsPerJob,
    maxRecords: Math.min(q.maxRecordsPerJob, q.maxRecordsPerInputFile),
    maxBytes: Math.min(q.maxInputFileBytes, q.maxJobBytes),
    maxJobsInFlight: q.maxJobsInFlightPerModel,
  };
}

/** A job timeout Bedrock takes. @throws Error naming the bounds. */
export function bedrockTimeoutHours(hours: number | undefined): number {
  const h = hours ?? BEDROCK_BATCH_QUOTAS.defaultTimeoutHours;
  if (!Number.isInteger(h) || h < BEDROCK_BATCH_QUOTAS.minTimeoutHours || h > BEDROCK_BATCH_QUOTAS.maxTimeoutHours)
    throw new Error(`a Bedrock batch job's timeout must be ${BEDROCK_BATCH_QUOTAS.minTimeoutHours}–${BEDROCK_BATCH_QUOTAS.maxTimeoutHours} hours, got ${h}`);
  return h;
}
