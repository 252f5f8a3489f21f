/**
 * The batch jobs of a run, as stored documents (`runs/<run_id>/batches/<index>.json`), and
 * which job each pending item's answer comes from. A job's document is written before the
 * job is created (state `submitting`, with the worst case it reserved against the cost cap)
 * and again with the provider's job id before any polling (`submitted`), so a process killed
 * at any point finds its job again instead of creating a second one. `settled` means the
 * job ended and its cost was booked: its results are read again, never billed again.
 */
import { z } from 'zod';
import { InputError } from '../errors.ts';
import { BATCH_ENDINGS, BATCH_PHASES } from '../models/index.ts';
import { parseStored, schemaVersionField } from './documents.ts';
import { runSegment } from './keys.ts';
import type { WorkItem } from './plan.ts';

export const BATCH_JOB_STATES = ['submitting', 'submitted', 'settled'] as const;

const RecordRefSchema = z.object({
  record_id: z.string().min(1),
  task_id: z.string().min(1),
  sample: z.number().int().min(0),
  language: z.string().min(1).optional(),
  /** A hash of the request body sent (custom id aside): a body the server rejected is not sent again unchanged. */
  body_hash: z.string().optional(),
  /** In the cloud: the item's records part (index, slot, size), carried to the record as a work item's. */
  part: z.object({ index: z.number().int().min(0), slot: z.number().int().min(0), size: z.number().int().min(1) }).optional(),
});

/** One batch job of a run; {@link BatchJobDocument} is inferred from it. */
export const BatchJobDocumentSchema = z
  .object({
    schema_version: schemaVersionField,
    run_id: z.string().min(1),
    index: z.number().int().min(0),
    /** Tags the provider's job (`<run_id>/batch-<index>`), so it can be found by tag after a kill. */
    key: z.string().min(1),
    client: z.string().min(1),
    job_id: z.string().min(1).nullable(),
    state: z.enum(BATCH_JOB_STATES),
    /** USD reserved against `--max-cost` for the job's worst case (prompt + max_tokens per record, batch price). */
    reserved_usd: z.number().min(0),
    /** Input tokens the job counts against the model's enqueued-token limit (estimated), where the provider has one. */
    enqueued_tokens: z.number().int().min(0).optional(),
    records: z.array(RecordRefSchema).min(1),
    /** The job's status when last polled. */
    status: z
      .object({
        phase: z.enum(BATCH_PHASES),
        ending: z.enum(BATCH_ENDINGS).optional(),
        provider_status: z.string(),
        total: z.number().int(),
        succeeded: z.number().int(),
        failed: z.number().int(),
        reason: z.string().optional(),
        expires_at: z.string().optional(),
      })
      .optional(),
    submitted_at: z.string().optional(),
    /** Written by the cloud's plan without a reservation: the batch stage reserves the worst case before creating the job. */
    reserve_pending: z.boolean().optional(),
    /** In the cloud: every result of the ended job was handed on (recorded or sent to its executor). */
    routed: z.boolean().optional(),
    /** In the cloud: the run was cancelled and the provider was asked to stop the job. */
    cancel_requested: z.boolean().optional(),
  })
  .loose();
export type BatchJobDocument = z.infer<typeof BatchJobDocumentSchema>;

export const batchKeys = {
  prefix: (runId: string) => `runs/${runSegment(runId)}/batches/`,
  job: (runId: string, index: number) => `runs/${runSegment(runId)}/batches/${String(index).padStart(4, '0')}.json`,
};

/** The one reader of a stored batch job document. @throws CorruptRecordError naming `origin`. */
export function parseBatchJob(text: string, origin: string): BatchJobDocument {
  return parseStored(BatchJobDocumentSchema, text, origin);
}

/** The key an item is known by inside a run's batch documents. */
export const itemKeyOf = (item: { taskId: string; sample: number }): string => `${item.taskId}#${item.sample}`;

/** Where each pending item's answer comes from. */
export interface BatchAssignment {
  /** Items whose answer a job already holds or will hold (by job index): read, never submitted again. */
  fromJobs: Map<number, WorkItem[]>;
  /** Items no job answers: they go into new jobs. */
  fresh: WorkItem[];
}

/**
 * Assigns the pending items of a run to its jobs. An item's latest job answers it while that
 * job runs, and after it ended unless the item was already recorded from that very job (then
 * it failed there, and a retry is a new job). `recordedFrom(item)` names the job a recorded
 * item's answer came from (undefined: not recorded, or generated on demand).
 */
export function assignItems(
  docs: readonly BatchJobDocument[],
  pending: readonly WorkItem[],
  recordedFrom: (item: WorkItem) => number | undefined,
): BatchAssignment {
  const latest = new Map<string, BatchJobDocument>();
  for (const doc of [...docs].sort((a, b) => a.index - b.index))
    for (const r of doc.records) latest.set(itemKeyOf({ taskId: r.task_id, sample: r.sample }), doc);
  const fromJobs = new Map<number, WorkItem[]>();
  const fresh: WorkItem[] = [];
  for (const item of pending) {
    const doc = latest.get(itemKeyOf(item));
    const retry = doc !== undefined && doc.state === 'settled' && item.previousVerdict !== undefined && recordedFrom(item) === doc.index;
    if (!doc || retry) fresh.push(item);
    else fromJobs.set(doc.index, [...(fromJobs.get(doc.index) ?? []), item]);
  }
  return { fromJobs, fresh };
}

/**
 * Splits encoded lines into jobs within the provider's limits (records and bytes per job),
 * keeping order. @throws Error when one line alone exceeds the byte limit.
 */
export function chunkLines(
  lines: readonly string[],
  limits: { maxRecords: number; maxBytes: number; maxEnqueuedTokens?: number | undefined },
  byteLength: (text: string) => number,
  tokens?: readonly number[],
): number[][] {
  const chunks: number[][] = [];
  let current: number[] = [];
  let bytes = 0;
  let enqueued = 0;
  const tokenLimit = limits.maxEnqueuedTokens ?? Infinity;
  for (const [index, line] of lines.entries()) {
    const size = byteLength(line) + 1;
    const count = tokens?.[index] ?? 0;
    if (size > limits.maxBytes) throw new Error(`one batch record is ${size} bytes, over the provider's ${limits.maxBytes}-byte job limit`);
    if (count > tokenLimit)
      throw new InputError(
        `one batch record is about ${count} input tokens, over the ${tokenLimit} tokens the model may have enqueued at once; raise --batch-token-limit to your organisation's limit, or run without --batch`,
        { field: 'batch-token-limit' },
      );
    if (current.length >= limits.maxRecords || bytes + size > limits.maxBytes || enqueued + count > tokenLimit) {
      chunks.push(current);
      current = [];
      bytes = 0;
      enqueued = 0;
    }
    current.push(index);
    bytes += size;
    enqueued += count;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** FNV-1a (32-bit, hex) of a text: tells two request bodies apart, nothing more (not a security hash). */
export function bodyHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** One line for `polyeval list runs`: the job's provider status and counts. */
export function describeJob(doc: BatchJobDocument): string {
  const s = doc.status;
  if (!s) return `batch job ${doc.job_id ?? `#${doc.index}`}: ${doc.state}`;
  const counts = `${s.succeeded}/${s.total} succeeded${s.failed ? `, ${s.failed} failed` : ''}`;
  return `batch job ${doc.job_id ?? `#${doc.index}`}: ${s.provider_status}, ${counts}${s.reason ? ` (${s.reason})` : ''}`;
}
