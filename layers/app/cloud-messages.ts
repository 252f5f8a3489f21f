/**
 * The messages between the cloud stages (DESIGN §9), with the zod schemas each consumer
 * parses them with: a malformed body is a HarnessError, so the message is retried and then
 * dead-lettered instead of being half-processed.
 *
 *   api/nightly ─PlanMessage─► plan ─WorkItem─► generate ─GeneratedItem─► execute-<lang>
 *   generate/execute ─AggregateMessage─► aggregate
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

export interface AggregateMessage {
  runId: string;
}

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

const AggregateMessageSchema = z.object({ runId: z.string().min(1) });

const WorkItemSchema = z.object({
  runId: z.string().min(1),
  taskId: z.string().min(1),
  sample: z.number().int().min(0),
  language: z.string().min(1).optional(),
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
export const parseWorkItem = (body: unknown): WorkItem => parseWith<WorkItem>(WorkItemSchema, 'work item', body);
export const parseGeneratedItem = (body: unknown): GeneratedItem => parseWith<GeneratedItem>(GeneratedItemSchema, 'generated item', body);
