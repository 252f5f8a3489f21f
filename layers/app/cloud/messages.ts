/**
 * The messages between the cloud stages (DESIGN §9), with the zod schemas each consumer
 * parses them with: a malformed body is a HarnessError, so the message is retried and then
 * dead-lettered instead of being half-processed. Every message is sent {@link versioned}
 * (`schema_version: 1`); one without it (sent by an older deployment, in flight during a
 * deploy) reads as version 1, and a newer version is refused by name (then dead-lettered:
 * redrive it once the newer polyeval is deployed).
 *
 *   api/nightly ─PlanMessage─► plan ─CloudWorkItem─► generate ─GeneratedMessage─► execute-<lang>
 *   generate/execute ─AggregateMessage─► aggregate (one records part, or the whole run)
 *
 * Message size: a queue created since SQS's 2025 raise takes 1 MiB by default, but our stack
 * sets no `MaximumMessageSize` and a queue created before keeps 256 KiB ("Amazon SQS message
 * quotas"; CreateQueue). So a generated item over {@link MAX_INLINE_BYTES} travels as a pointer
 * to an S3 object (layers/app/cloud/large-messages.ts), within either.
 */
import { z } from 'zod';
import { HarnessError } from '#core/errors.ts';
import { parseStoredValue, SCHEMA_VERSION, schemaVersionField } from '#core/run/index.ts';
import { GeneratedItemSchema, type GeneratedItem } from '#core/run/index.ts';
import { WorkItemSchema } from '#core/run/index.ts';
import { RunSpecSchema } from '#core/run/index.ts';

/** Above this a generated item is stored in S3 and sent as a pointer (under 256 KiB, attributes included: a queue created before 2025's raise to 1 MiB keeps 256 KiB). */
export const MAX_INLINE_BYTES = 200 * 1024;

/** One run as the api asked for it: the whole spec plus the one source and language it covers. */
const RunRequestSchema = z.object({
  spec: RunSpecSchema,
  /** The single benchmark source of this run (`sample/abricot`, `rocode:s3://…`). */
  benchmark: z.string().min(1),
  language: z.string().min(1).optional(),
  createdAt: z.string().min(1),
});
export type RunRequest = z.infer<typeof RunRequestSchema>;

/** Statuses a run is resumed from (`remote resume`): it ended without being cancelled. */
export const RESUMABLE_STATUSES = ['completed', 'completed_with_missing', 'stopped', 'failed'] as const;

/**
 * Plan one chunk of a run: the first message (offset 0) carries the request and plans the
 * run and sends the plan message of every later chunk; each of those carries only its offset.
 */
const PlanMessageSchema = z.object({
  schema_version: schemaVersionField,
  runId: z.string().min(1),
  offset: z.number().int().min(0),
  request: RunRequestSchema.optional(),
  /** `polyeval remote resume`: when it was asked (its marker's name); the run's SE and missing items are sent again (resume.ts). */
  resume: z.string().min(1).optional(),
  /** The status (and reason) the resumed run had when the resume claimed it: plan puts it back when nothing is to run again. */
  resumedFrom: z.object({ status: z.enum(RESUMABLE_STATUSES), reason: z.string().optional() }).optional(),
});
export type PlanMessage = z.infer<typeof PlanMessageSchema>;

/**
 * To aggregate: `part` set → write that records part; otherwise the whole run, and with
 * `allowMissing` (the watchdog) over what is recorded, listing the items that are not.
 */
const AggregateMessageSchema = z.object({
  schema_version: schemaVersionField,
  runId: z.string().min(1),
  part: z.number().int().min(0).optional(),
  allowMissing: z.boolean().optional(),
  /** With allowMissing: ids of the run's items the watchdog found in a DLQ (redrivable; the other missing ones are lost). */
  deadLettered: z.array(z.string().min(1)).optional(),
  /**
   * Sent when a `remote resume`'s last item is recorded (resume.ts countResumed): every records
   * part is compacted again from the item records, and a run already completed (another
   * delivery aggregated it while the resume ran) is aggregated again, so the re-run records count.
   */
  recompact: z.boolean().optional(),
  /**
   * With allowMissing: sent when an item was recorded after the run was closed as
   * `completed_with_missing` (completion.ts reaggregateLate): the run is aggregated again, the
   * items the last summary listed as dead-lettered kept so, unless nothing was recorded since.
   */
  late: z.boolean().optional(),
});
export type AggregateMessage = z.infer<typeof AggregateMessageSchema>;

/**
 * Where a work item sits in its run: records part `index` (one plan chunk), position `slot`
 * in it, and the part's item count `size`. The stage that records the part's last item asks
 * aggregate to write the part's Parquet file, so aggregation never reads items one by one.
 */
const PartRefSchema = z.object({ index: z.number().int().min(0), slot: z.number().int().min(0), size: z.number().int().min(1) });
export type PartRef = z.infer<typeof PartRefSchema>;

/** A work item as the cloud sends it: the core item (previousVerdict included) plus its records part. */
const CloudWorkItemSchema = WorkItemSchema.extend({ schema_version: schemaVersionField, part: PartRefSchema.optional() });
export type CloudWorkItem = z.infer<typeof CloudWorkItemSchema>;

/** A generated item too large for SQS, stored at `key` (the item is repeated for routing and logs). */
const GeneratedPointerSchema = z.object({
  schema_version: schemaVersionField,
  pointer: z.object({ key: z.string().min(1), bytes: z.number().int().min(0) }),
  item: CloudWorkItemSchema,
});
export type GeneratedPointer = z.infer<typeof GeneratedPointerSchema>;

/** What an execute queue carries. */
export type GeneratedMessage = GeneratedItem | GeneratedPointer;

/** Whether a message is the pointer to a generated item stored in S3. */
export function isPointer(message: GeneratedMessage): message is GeneratedPointer {
  return 'pointer' in message && typeof message.pointer === 'object' && message.pointer !== null;
}

const GeneratedMessageSchema = GeneratedItemSchema.extend({ schema_version: schemaVersionField, item: CloudWorkItemSchema });

/** A message body as polyeval sends it: stamped with the {@link SCHEMA_VERSION} this code writes. */
export function versioned<T extends object>(body: T): T & { schema_version: typeof SCHEMA_VERSION } {
  return { ...body, schema_version: SCHEMA_VERSION };
}

/** @throws CorruptRecordError (a HarnessError) naming the message kind and the first field that does not match. */
function parseWith<S extends z.ZodType>(schema: S, what: string, body: unknown): z.output<S> {
  return parseStoredValue(schema, body, `${what} message`);
}

/** Reads a message body (the JSON text of an SQS record or a stored message). */
export function parseJsonBody(body: string, what: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch (cause) {
    throw new HarnessError(`malformed ${what} message: the body is not JSON`, { cause });
  }
}

export const parsePlanMessage = (body: unknown): PlanMessage => parseWith(PlanMessageSchema, 'plan', body);
export const parseAggregateMessage = (body: unknown): AggregateMessage => parseWith(AggregateMessageSchema, 'aggregate', body);
export const parseWorkItem = (body: unknown): CloudWorkItem => parseWith(CloudWorkItemSchema, 'work item', body);
/** A generated item, or the pointer to one stored in S3 (resolve it with resolveGenerated). */
export const parseGeneratedItem = (body: unknown): GeneratedMessage =>
  typeof body === 'object' && body !== null && 'pointer' in body
    ? parseWith(GeneratedPointerSchema, 'generated item pointer', body)
    : parseWith(GeneratedMessageSchema, 'generated item', body);
