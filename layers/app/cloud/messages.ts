/**
 * The messages between the cloud stages (DESIGN §9), with the zod schemas each consumer
 * parses them with: a malformed body is a HarnessError, so the message is retried and then
 * dead-lettered instead of being half-processed.
 *
 *   api/nightly ─PlanMessage─► plan ─CloudWorkItem─► generate ─GeneratedMessage─► execute-<lang>
 *   generate/execute ─AggregateMessage─► aggregate (one records part, or the whole run)
 *
 * SQS takes 256 KiB per message: a generated item over {@link MAX_INLINE_BYTES} travels as a
 * pointer to an S3 object (layers/app/cloud/large-messages.ts).
 */
import { z } from 'zod';
import { HarnessError } from '#core/errors.ts';
import type { GeneratedItem } from '#core/run/engine.ts';
import type { WorkItem } from '#core/run/plan.ts';
import { RunSpecSchema, type RunSpec } from '#core/run/spec.ts';

/** One run as the api asked for it: the whole spec plus the one source and language it covers. */
export interface RunRequest {
  spec: RunSpec;
  /** The single benchmark source of this run (`sample/abricot`, `rocode:s3://…`). */
  benchmark: string;
  language?: string;
  createdAt: string;
}

/**
 * Plan one chunk of a run: the first message (offset 0) carries the request and plans the
 * run; each later one carries only the offset of the next chunk to enqueue.
 */
export interface PlanMessage {
  runId: string;
  offset: number;
  request?: RunRequest;
}

/**
 * Where a work item sits in its run: records part `index` (one plan chunk), position `slot`
 * in it, and the part's item count `size`. The stage that records the part's last item asks
 * aggregate to write the part's Parquet file, so aggregation never reads items one by one.
 */
export interface PartRef {
  index: number;
  slot: number;
  size: number;
}

/** A work item as the cloud sends it: the core item plus its records part. */
export interface CloudWorkItem extends WorkItem {
  part?: PartRef;
}

/**
 * To aggregate: `part` set → write that records part; otherwise the whole run, and with
 * `allowMissing` (the watchdog) over what is recorded, listing the items that are not.
 */
export interface AggregateMessage {
  runId: string;
  part?: number;
  allowMissing?: boolean;
  /** With allowMissing: ids of the run's items the watchdog found in a DLQ (redrivable; the other missing ones are lost). */
  deadLettered?: string[];
}

/** A generated item too large for SQS, stored at `key` (the item is repeated for routing and logs). */
export interface GeneratedPointer {
  pointer: { key: string; bytes: number };
  item: CloudWorkItem;
}

/** What an execute queue carries. */
export type GeneratedMessage = GeneratedItem | GeneratedPointer;

/** Above this a generated item is stored in S3 and sent as a pointer (SQS's limit is 256 KiB, attributes included). */
export const MAX_INLINE_BYTES = 200 * 1024;

const RunRequestSchema = z.object({
  spec: RunSpecSchema,
  benchmark: z.string().min(1),
  language: z.string().min(1).optional(),
  createdAt: z.string().min(1),
});

const PlanMessageSchema = z.object({
  runId: z.string().min(1),
  offset: z.number().int().min(0),
  request: RunRequestSchema.optional(),
});

const AggregateMessageSchema = z.object({
  runId: z.string().min(1),
  part: z.number().int().min(0).optional(),
  allowMissing: z.boolean().optional(),
  deadLettered: z.array(z.string().min(1)).optional(),
});

const PartRefSchema = z.object({ index: z.number().int().min(0), slot: z.number().int().min(0), size: z.number().int().min(1) });

const WorkItemSchema = z.object({
  runId: z.string().min(1),
  taskId: z.string().min(1),
  sample: z.number().int().min(0),
  language: z.string().min(1).optional(),
  part: PartRefSchema.optional(),
});

const GeneratedPointerSchema = z.object({
  pointer: z.object({ key: z.string().min(1), bytes: z.number().int().min(0) }),
  item: WorkItemSchema,
});

const UsageSchema = z.object({ promptTokens: z.number(), completionTokens: z.number() }).passthrough();

const GeneratedItemSchema = z
  .object({
    item: WorkItemSchema,
    raw: z.string(),
    answer: z.string(),
    usage: UsageSchema.nullable(),
    latencyMs: z.number().nullable(),
    attempts: z.number().int().min(0),
    likert: z.unknown().optional(),
    failure: z.string().optional(),
  })
  .passthrough();

function parseWith<T>(schema: z.ZodType, what: string, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data as T;
  const issue = result.error.issues[0];
  throw new HarnessError(`malformed ${what} message: ${issue?.path.join('.') || 'body'} ${issue?.message ?? 'is invalid'}`);
}

/** Reads a message body (the JSON text of an SQS record). */
export function parseJsonBody(body: string, what: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch (cause) {
    throw new HarnessError(`malformed ${what} message: the body is not JSON`, { cause });
  }
}

export const parsePlanMessage = (body: unknown): PlanMessage => parseWith<PlanMessage>(PlanMessageSchema, 'plan', body);
export const parseAggregateMessage = (body: unknown): AggregateMessage => parseWith<AggregateMessage>(AggregateMessageSchema, 'aggregate', body);
export const parseWorkItem = (body: unknown): CloudWorkItem => parseWith<CloudWorkItem>(WorkItemSchema, 'work item', body);
/** A generated item, or the pointer to one stored in S3 (resolve it with resolveGenerated). */
export const parseGeneratedItem = (body: unknown): GeneratedMessage =>
  typeof body === 'object' && body !== null && 'pointer' in body
    ? parseWith<GeneratedPointer>(GeneratedPointerSchema, 'generated item pointer', body)
    : parseWith<GeneratedItem>(GeneratedItemSchema, 'generated item', body);
