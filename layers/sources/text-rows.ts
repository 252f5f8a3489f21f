/** Rows of a text format (JSONL, CSV, TSV), plain or gzip, from any byte stream. */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { HarnessError } from '../core/errors.ts';
import { delimitedRows } from './readers/delimited.ts';
import { jsonlRows } from './readers/jsonl.ts';
import { textLines } from './readers/text-lines.ts';
import type { FileKind } from './format.ts';
import type { SourceRow } from './types.ts';

/** Decompresses (when `.gz`) and parses `bytes` as `kind`; the stream is read once, lazily. */
export function textRows(bytes: Readable, kind: FileKind, label: string): AsyncGenerator<SourceRow> {
  let plain: AsyncIterable<Uint8Array> = bytes;
  if (kind.gzip) {
    const gunzip = createGunzip();
    bytes.on('error', (err) => gunzip.destroy(err));
    // A reader that stops early destroys the gunzip stream; release the file or socket too.
    gunzip.on('close', () => bytes.destroy());
    plain = bytes.pipe(gunzip);
  }
  const lines = textLines(plain, label);
  switch (kind.format) {
    case 'jsonl':
      return jsonlRows(lines, label);
    case 'csv':
      return delimitedRows(lines, ',', label);
    case 'tsv':
      return delimitedRows(lines, '\t', label);
    case 'parquet':
      throw new HarnessError(`textRows called for parquet file ${label}`);
    default: {
      const never: never = kind.format;
      throw new HarnessError(`unknown format ${String(never)}`);
    }
  }
}
