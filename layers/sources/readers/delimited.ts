/**
 * CSV and TSV (RFC 4180): a header row names the columns; a field may be quoted with `"`,
 * a quoted field may hold the delimiter, `""` and line breaks. A `"` inside an unquoted field
 * is kept as text (as Python's csv module does), because real TSV files carry bare quotes.
 * Line breaks inside quoted fields come back as `\n`.
 */
import { InputError } from '../../core/errors.ts';
import type { SourceRow } from '../types.ts';
import type { TextLine } from './text-lines.ts';

interface RawRecord {
  fields: string[];
  line: number;
}

/** Splits `lines` into records of fields, joining lines inside quoted fields. */
export async function* delimitedRecords(
  lines: AsyncIterable<TextLine>,
  delimiter: ',' | '\t',
  label: string,
): AsyncGenerator<RawRecord> {
  let fields: string[] = [];
  let field = '';
  let inQuotes = false;
  let quoted = false; // the current field started with a quote
  let startLine = 0;
  let quoteLine = 0;
  for await (const { text, line } of lines) {
    if (!inQuotes) {
      if (text === '') continue; // a blank line is no record
      fields = [];
      field = '';
      quoted = false;
      startLine = line;
    } else {
      field += '\n';
    }
    let i = 0;
    while (i < text.length) {
      const c = text[i] as string;
      if (inQuotes) {
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          inQuotes = false;
          const next = text[i + 1];
          if (next !== undefined && next !== delimiter) {
            throw new InputError(`unexpected ${JSON.stringify(next)} after a closing quote`, {
              file: label,
              line,
              field: `column ${fields.length + 1}`,
            });
          }
          i += 1;
          continue;
        }
        field += c;
        i += 1;
        continue;
      }
      if (c === delimiter) {
        fields.push(field);
        field = '';
        quoted = false;
      } else if (c === '"' && field === '' && !quoted) {
        inQuotes = true;
        quoted = true;
        quoteLine = line;
      } else {
        field += c;
      }
      i += 1;
    }
    if (!inQuotes) {
      fields.push(field);
      yield { fields, line: startLine };
    }
  }
  if (inQuotes) {
    throw new InputError('unterminated quoted field', { file: label, line: quoteLine, field: `column ${fields.length + 1}` });
  }
}

/** Rows of a CSV/TSV file as objects keyed by the header row; every value is a string. */
export async function* delimitedRows(
  lines: AsyncIterable<TextLine>,
  delimiter: ',' | '\t',
  label: string,
): AsyncGenerator<SourceRow> {
  let header: string[] | undefined;
  for await (const { fields, line } of delimitedRecords(lines, delimiter, label)) {
    if (!header) {
      header = checkHeader(fields, line, label);
      continue;
    }
    if (fields.length === 1 && fields[0] === '' && header.length > 1) continue;
    if (fields.length !== header.length) {
      throw new InputError(`expected ${header.length} fields as in the header, found ${fields.length}`, { file: label, line });
    }
    const row: Record<string, unknown> = {};
    header.forEach((name, i) => {
      row[name] = fields[i];
    });
    yield { row, line, file: label };
  }
  if (!header) throw new InputError('empty file: expected a header row', { file: label });
}

function checkHeader(fields: string[], line: number, label: string): string[] {
  const names = fields.map((f) => f.trim());
  const seen = new Set<string>();
  names.forEach((name, i) => {
    if (name === '') throw new InputError('empty column name in the header', { file: label, line, field: `column ${i + 1}` });
    if (seen.has(name)) throw new InputError('duplicate column name in the header', { file: label, line, field: name });
    seen.add(name);
  });
  return names;
}
