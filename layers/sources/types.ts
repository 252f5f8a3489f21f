/**
 * The public shapes of dataset sources: where rows come from (a local file, `s3://`, the
 * Hugging Face Hub, an `https://` URL) and how they are read (one row at a time).
 */
import type { S3Client } from '@aws-sdk/client-s3';

/** The row formats a source can hold; the format comes from the file name's extension. */
export type SourceFormat = 'jsonl' | 'csv' | 'tsv' | 'parquet';

/** One row with where it came from, so a bad field can be reported by file and line. */
export interface SourceRow {
  row: Record<string, unknown>;
  /** 1-based line of the row in the (decompressed) text; for parquet, the 1-based row number. */
  line: number;
  /** The source's label (the ref the user gave). */
  file: string;
}

/** A readable dataset file. Reading is lazy and streaming: nothing is loaded whole. */
export interface RowSource {
  /** The ref as the user wrote it; used in error messages. */
  label: string;
  format: SourceFormat;
  /** Hex sha256 of the file bytes as stored (compressed bytes for a `.gz` file). */
  sha256(): Promise<string>;
  /** Rows in file order; blank lines are skipped; a malformed row throws an `InputError`. */
  rows(): AsyncIterable<SourceRow>;
}

/** Side effects and configuration of the sources, passed in so tests can use local servers. */
export interface SourceOptions {
  /** Where downloads (Hub files, URLs) are cached, e.g. `.polyeval/cache`. */
  cacheDir: string;
  /** Environment to read HF_TOKEN, HF_ENDPOINT and AWS_* from (default: `process.env`). */
  env?: NodeJS.ProcessEnv;
  s3Client?: S3Client;
  fetchImpl?: typeof fetch;
  /** Called as bytes arrive: bytes received so far and the total when known. */
  onProgress?: (bytes: number, total?: number) => void;
}
