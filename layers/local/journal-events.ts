/**
 * The events of the local ledger journal (`<dir>/<run>.jsonl`, file-run-ledger.ts), one JSON
 * object a line, and the one function that reads a line back. Lines carry no schema_version
 * (a journal is rewritten by no one and read by the polyeval that resumes it); one that does
 * carry a newer version than this code reads is refused by name.
 */
import { z } from 'zod';
import { CorruptRecordError } from '#core/errors.ts';
import type { RunStatus } from '#core/ports.ts';
import { parseStoredValue, schemaVersionField } from '#core/run/index.ts';
import { VerdictSchema } from '#core/columns.ts';

const STATUSES = [
  'planned',
  'running',
  'aggregating',
  'completed',
  'completed_with_missing',
  'stopped',
  'cancelled',
  'failed',
] as const satisfies readonly RunStatus[];
// Every RunStatus is listed (a compile error when one is added to the port and not here).
const everyStatus: Exclude<RunStatus, (typeof STATUSES)[number]> extends never ? true : never = true;
void everyStatus;

const at = z.string().min(1);
const version = { schema_version: schemaVersionField };

const EventSchema = z.discriminatedUnion('e', [
  z.object({
    ...version,
    e: z.literal('create'),
    run: z
      .object({
        runId: z.string().min(1),
        benchmark: z.string(),
        model: z.string(),
        status: z.enum(STATUSES),
        items: z.number().int().min(0),
        createdAt: z.string().min(1),
        reason: z.string().optional(),
      })
      .loose(),
    at,
  }),
  z.object({ ...version, e: z.literal('item'), id: z.string().min(1), v: VerdictSchema, at }),
  z.object({ ...version, e: z.literal('revise'), id: z.string().min(1), from: VerdictSchema, v: VerdictSchema, at }),
  z.object({ ...version, e: z.literal('cost'), usd: z.number().finite(), booking: z.string().min(1).optional(), at }),
  z.object({ ...version, e: z.literal('status'), status: z.enum(STATUSES), reason: z.string().optional(), at }),
]);

/** One journal event. */
export type Event = z.infer<typeof EventSchema>;

/**
 * A fragment of one of our own appends cut short (every event is written as `{"e":"…`): what
 * SIGKILL mid-append leaves, which a resumed run may since have appended past.
 */
function isTornAppend(line: string): boolean {
  return line.startsWith('{"e":"') && !line.trimEnd().endsWith('}');
}

/**
 * Reads line `lineNumber` (from 1) of the journal `file`; `last` says it is the segment after
 * the file's last newline (a line still being written when its process died).
 * @returns the event, or undefined for a torn append (skipped: its item is simply done again).
 * @throws CorruptRecordError naming the file, line and field of any other damaged line.
 */
export function readJournalLine(line: string, file: string, lineNumber: number, last: boolean): Event | undefined {
  const key = `${file}, line ${lineNumber}`;
  let value: unknown;
  try {
    value = JSON.parse(line) as unknown;
  } catch (cause) {
    if (last || isTornAppend(line)) return undefined;
    throw new CorruptRecordError(key, undefined, `is not JSON (${JSON.stringify(line.slice(0, 60))}…: a damaged or hand-edited line, fix or remove it)`, {
      cause,
    });
  }
  return parseStoredValue(EventSchema, value, key);
}
