/** Detects a file's row format and compression from its name. */
import { InputError } from '../core/errors.ts';
import type { SourceFormat } from './types.ts';

/** Format and compression of a file, from its extension. */
export interface FileKind {
  format: SourceFormat;
  gzip: boolean;
}

const EXTENSIONS: ReadonlyArray<readonly [string, SourceFormat]> = [
  ['.jsonl', 'jsonl'],
  ['.ndjson', 'jsonl'],
  ['.csv', 'csv'],
  ['.tsv', 'tsv'],
  ['.parquet', 'parquet'],
];

/** The kind of `name` (a path, key or URL path), or undefined when it is not a data file. */
export function fileKindOf(name: string): FileKind | undefined {
  let lower = name.toLowerCase().replace(/[?#].*$/, '');
  const gzip = lower.endsWith('.gz');
  if (gzip) lower = lower.slice(0, -3);
  for (const [ext, format] of EXTENSIONS) {
    if (lower.endsWith(ext)) return { format, gzip };
  }
  return undefined;
}

/** Like {@link fileKindOf}, but a name without a known extension is an `InputError`. */
export function requireFileKind(name: string, label = name): FileKind {
  const kind = fileKindOf(name);
  if (!kind) {
    throw new InputError('unknown dataset format: expected a name ending in .jsonl, .ndjson, .csv, .tsv or .parquet (optionally .gz)', { file: label });
  }
  return kind;
}

/** Matches the path of any data file this package can read (used to pick files from a repo). */
export const DATA_FILE_PATTERN = /\.(jsonl|ndjson|csv|tsv|parquet)(\.gz)?$/i;
