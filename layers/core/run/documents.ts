/**
 * Stored documents (DESIGN §5: manifest, item, summary, records parts, queue messages) are
 * defined once, as zod schemas whose types the code infers, and read through one function
 * each that validates them. Every document carries `schema_version`; one written before
 * versions existed has none and is version 1, so no recorded run becomes unreadable.
 * Schemas are loose: a field this version does not know is kept, never dropped.
 */
import { z } from 'zod';
import { CorruptRecordError, InputError } from '../errors.ts';

/** The version this code writes. A reader meeting a newer one refuses it by name. */
export const SCHEMA_VERSION = 1;

/** The `schema_version` field of every stored document; absent means 1. */
export const schemaVersionField = z
  .literal(SCHEMA_VERSION, {
    error: (issue) => `schema_version ${JSON.stringify(issue.input)} is not one this polyeval reads (it reads ${SCHEMA_VERSION}); update polyeval`,
  })
  .optional();

/** The JSON text to store for `doc`, stamped with the current {@link SCHEMA_VERSION}. */
export function storedJson(doc: object, indent?: number): string {
  return JSON.stringify({ schema_version: SCHEMA_VERSION, ...doc }, null, indent);
}

function firstIssue(error: z.ZodError): { field: string | undefined; message: string } {
  const issue = error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : undefined;
  return { field, message: issue?.message ?? 'is invalid' };
}

/**
 * Validates an already-parsed stored value (a queue message body, a document) against
 * `schema`.
 * @throws CorruptRecordError naming `key` and the first field that does not match.
 */
export function parseStoredValue<S extends z.ZodType>(schema: S, value: unknown, key: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { field, message } = firstIssue(result.error);
  throw new CorruptRecordError(key, field, message);
}

/**
 * Reads the JSON text of a stored document (a key or file the harness wrote).
 * @example
 * const manifest = parseStored(ManifestSchema, text, 'runs/r1/manifest.json');
 * @throws CorruptRecordError naming `key` (and the field) when the text is not JSON or does not match.
 */
export function parseStored<S extends z.ZodType>(schema: S, text: string, key: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (cause) {
    throw new CorruptRecordError(key, undefined, 'is not JSON', { cause });
  }
  return parseStoredValue(schema, value, key);
}

/**
 * Reads a stored JSON-lines document (one value per line, blank lines skipped).
 * @example
 * const tasks = parseStoredLines(TaskSchema, text, 'runs/r1/tasks.jsonl');
 * @throws CorruptRecordError naming `key`, the line (from 1) and the field of the first line that does not match.
 */
export function parseStoredLines<S extends z.ZodType>(schema: S, text: string, key: string): z.output<S>[] {
  const out: z.output<S>[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() !== '') out.push(parseStored(schema, line, `${key}, line ${index + 1}`));
  }
  return out;
}

/**
 * Reads the JSON text of a document the user gave (a file path or name).
 * @throws InputError naming `file` and the field when the text is not JSON or does not match.
 */
export function parseUserDocument<S extends z.ZodType>(schema: S, text: string, file: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (cause) {
    throw new InputError('is not JSON', { file }, { cause });
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { field, message } = firstIssue(result.error);
  throw new InputError(message, field === undefined ? { file } : { file, field });
}
