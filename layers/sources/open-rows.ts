/** The one entry point that turns any dataset ref into rows. */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireFileKind } from './format.ts';
import { downloadHubRef } from './hub/download-file.ts';
import { isHubRef, parseHubRef } from './hub/hub-ref.ts';
import { localRowSource } from './local-file.ts';
import { openS3Rows } from './s3-source.ts';
import { downloadUrl, isUrlRef } from './url-download.ts';
import type { RowSource, SourceOptions } from './types.ts';

/**
 * Opens `ref` for reading rows: a local path (or `file://` URL), `s3://bucket/key`,
 * `hf://datasets/<owner>/<name>/<path>[@revision]` (downloaded into `opts.cacheDir` first), or
 * an `https://` URL (cached the same way). The format comes from the extension: `.jsonl`,
 * `.ndjson`, `.csv`, `.tsv`, `.parquet`, each optionally `.gz`.
 *
 * @example
 * const source = await openRows('hf://datasets/cosmadrian/rocode/rocode_test.jsonl', { cacheDir: '.polyeval/cache' });
 * for await (const { row, line, file } of source.rows()) { ... }
 */
export async function openRows(ref: string, opts: SourceOptions): Promise<RowSource> {
  const scratchDir = join(opts.cacheDir, 'scratch');
  if (ref.startsWith('s3://')) return openS3Rows(ref, opts);
  if (isHubRef(ref)) {
    const file = parseHubRef(ref);
    requireFileKind(file.path, ref);
    const cached = await downloadHubRef(file, opts);
    return localRowSource(cached.path, ref, { scratchDir, sha256: cached.sha256, nameForFormat: file.path });
  }
  if (isUrlRef(ref)) {
    requireFileKind(new URL(ref).pathname, ref);
    const cached = await downloadUrl(ref, opts);
    return localRowSource(cached.path, ref, { scratchDir, sha256: cached.sha256, nameForFormat: new URL(ref).pathname });
  }
  const path = ref.startsWith('file://') ? fileURLToPath(ref) : ref;
  return localRowSource(path, ref, { scratchDir });
}
