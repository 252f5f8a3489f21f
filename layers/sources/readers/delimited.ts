/**
 * CSV and TSV (RFC 4180), parsed by `csv-parse`: a header row names the columns; a field may
 * be quoted with `"`, a quoted field may hold the delimiter, `""` and line breaks. A `"` inside
 * an unquoted field is kept as text (csv-parse's `relax_quotes`, as Python's csv module does),
 * because real TSV files carry bare quotes. Line breaks inside quoted fields come back as `\n`
 * (lines reach the parser from `textLines`, which drops `\r` and the BOM and names stream
 * failures). Every error names the file, the line and, where known, the column.
 */
import { pipeline, Readable } from 'node:stream';
import type { CsvError, Info } from 'csv-parse';
import { InputError } from '../../core/errors.ts';
import type { SourceRow } from '../types.ts';
import type { TextLine } from './text-lines.ts';

interface RawRecord {
  fields: string[];
  line: number;
}

/** Splits `lines` into records of fields, joining lines inside quoted fields. */
export async function* delimitedRecords(lines: AsyncIterable<TextLine>, delimiter: ',' | '\t', label: string): AsyncGenerator<RawRecord> {
  // csv-parse is loaded by the first CSV/TSV read: a command that reads none never pays its start-up.
  const { CsvError: CsvErrorClass, parse } = await import('csv-parse');
  const parser = parse({ delimiter, relax_quotes: true, relax_column_count: true, skip_empty_lines: true, info: true });
  async function* text(): AsyncGenerator<string> {
    for await (const { text: line } of lines) yield `${line}\n`;
  }
  pipeline(Readable.from(text()), parser, () => undefined); // a source failure reaches the loop below
  // Where the last record ended: the next one starts after it and the blank lines skipped since.
  let lastEnd = 0;
  let lastEmpty = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: Info }>) {
      const newlines = record.reduce((n, field) => n + field.split('\n').length - 1, 0);
      lastEnd = info.lines;
      lastEmpty = info.empty_lines;
      yield { fields: record, line: info.lines - newlines };
    }
  } catch (err) {
    if (!(err instanceof CsvErrorClass)) throw err;
    const line = lastEnd + 1 + ((err as CsvError & Info).empty_lines - lastEmpty);
    const column = (err as CsvError & { index?: number }).index;
    const where = column === undefined ? { file: label, line } : { file: label, line, field: `column ${column + 1}` };
    if (err.code === 'CSV_QUOTE_NOT_CLOSED') throw new InputError('unterminated quoted field', where, { cause: err });
    throw new InputError(err.message, where, { cause: err });
  }
}

/** Rows of a CSV/TSV file as objects keyed by the header row; every value is a string. */
export async function* delimitedRows(lines: AsyncIterable<TextLine>, delimiter: ',' | '\t', label: string): AsyncGenerator<SourceRow> {
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
