/** A `RowSource` over a file on this machine. */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { InputError } from '../core/errors.ts';
import { requireFileKind, type FileKind } from './format.ts';
import { sha256OfFile } from './hash.ts';
import { parquetRows } from './readers/parquet.ts';
import { streamError } from './readers/text-lines.ts';
import { textRows } from './text-rows.ts';
import type { RowSource, SourceRow } from './types.ts';

export interface LocalFileOptions {
  /** Where a `.parquet.gz` is decompressed for random access (removed after reading). */
  scratchDir: string;
  /** The file's sha256 when already known (a verified download), so it is not hashed again. */
  sha256?: string;
  /** The name whose extension gives the format, when the file's own name does not. */
  nameForFormat?: string;
}

/** Opens `path` for reading; a missing or unreadable file is an `InputError` naming `label`. */
export async function localRowSource(path: string, label: string, opts: LocalFileOptions): Promise<RowSource> {
  const kind = requireFileKind(opts.nameForFormat ?? path, label);
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    throw streamError(err, label);
  }
  if (!info.isFile()) throw new InputError('not a regular file', { file: label });
  let hashed: Promise<string> | undefined = opts.sha256 ? Promise.resolve(opts.sha256) : undefined;
  return {
    label,
    format: kind.format,
    sha256: () => (hashed ??= sha256OfFile(path).catch((err: unknown) => Promise.reject(streamError(err, label)))),
    rows: () => localRows(path, kind, label, opts.scratchDir),
  };
}

async function* localRows(path: string, kind: FileKind, label: string, scratchDir: string): AsyncGenerator<SourceRow> {
  if (kind.format !== 'parquet') {
    yield* textRows(createReadStream(path, { highWaterMark: 1 << 20 }), kind, label);
    return;
  }
  if (!kind.gzip) {
    yield* parquetRows(path, label);
    return;
  }
  // Parquet needs random access: decompress to a scratch file first.
  await mkdir(scratchDir, { recursive: true });
  const plain = join(scratchDir, `${randomUUID()}.parquet`);
  try {
    try {
      await pipeline(createReadStream(path), createGunzip(), createWriteStream(plain));
    } catch (err) {
      throw streamError(err, label);
    }
    yield* parquetRows(plain, label);
  } finally {
    await rm(plain, { force: true });
  }
}
