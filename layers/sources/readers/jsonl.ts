/** JSON Lines: one JSON object per line; blank lines are skipped. */
import { InputError } from '../../core/errors.ts';
import type { SourceRow } from '../types.ts';
import type { TextLine } from './text-lines.ts';

/** Parses each non-blank line of `lines` as a JSON object. */
export async function* jsonlRows(lines: AsyncIterable<TextLine>, label: string): AsyncGenerator<SourceRow> {
  for await (const { text, line } of lines) {
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new InputError(`malformed JSON (${(err as Error).message})`, { file: label, line }, { cause: err });
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new InputError(`expected a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`, {
        file: label,
        line,
      });
    }
    yield { row: value as Record<string, unknown>, line, file: label };
  }
}
