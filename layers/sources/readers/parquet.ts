/**
 * Parquet through `hyparquet`, one row group at a time, so memory holds one row group and
 * never the whole table. Compression: SNAPPY (built in), GZIP and BROTLI (node:zlib); ZSTD
 * needs a Node with zlib zstd support.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import type { Compressors } from 'hyparquet';
import { InputError } from '../../core/errors.ts';
import type { SourceRow } from '../types.ts';

const zstd = (zlib as unknown as { zstdDecompressSync?: (b: Uint8Array) => Buffer }).zstdDecompressSync;

const COMPRESSORS: Compressors = {
  GZIP: (input) => new Uint8Array(gunzipSync(input)),
  BROTLI: (input) => new Uint8Array(brotliDecompressSync(input)),
  ...(zstd ? { ZSTD: (input: Uint8Array) => new Uint8Array(zstd(input)) } : {}),
};

/** Rows of the parquet file at `path`; `line` is the 1-based row number. */
export async function* parquetRows(path: string, label: string): AsyncGenerator<SourceRow> {
  // hyparquet is loaded by the first Parquet read: a command that reads none never pays its start-up.
  const { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } = await import('hyparquet');
  let metadata;
  let file;
  try {
    file = await asyncBufferFromFile(path);
    metadata = await parquetMetadataAsync(file);
  } catch (err) {
    throw new InputError(`not a readable parquet file (${(err as Error).message})`, { file: label }, { cause: err });
  }
  let rowStart = 0;
  for (const group of metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    let rows: Record<string, unknown>[];
    try {
      rows = await parquetReadObjects({ file, metadata, rowStart, rowEnd, compressors: COMPRESSORS });
    } catch (err) {
      throw new InputError(
        `cannot decode parquet rows ${rowStart + 1}-${rowEnd} (${(err as Error).message})`,
        { file: label },
        {
          cause: err,
        },
      );
    }
    for (let i = 0; i < rows.length; i += 1) {
      yield { row: plain(rows[i]) as Record<string, unknown>, line: rowStart + i + 1, file: label };
    }
    rowStart = rowEnd;
  }
}

/** int64 columns decode to bigint: make them numbers when exact, decimal strings otherwise. */
function plain(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = plain(v);
    return out;
  }
  return value;
}
