/**
 * Dataset sources: rows from local files, `s3://` objects, the Hugging Face Hub (downloaded
 * into a cache: resumable, checksummed, atomic) and `https://` URLs, in JSONL, CSV, TSV and
 * parquet (each optionally gzip); the named published datasets; the Romanian lexicon of the
 * code-switching metric.
 */
export type { RowSource, SourceFormat, SourceOptions, SourceRow } from './types.ts';
export { openRows } from './open-rows.ts';
export { fileKindOf, DATA_FILE_PATTERN, type FileKind } from './format.ts';
export { resolveHubFiles, type HubFile } from './hub/list-files.ts';
export { downloadHubFile, hubCachePath } from './hub/download-file.ts';
export { parseHubRef, formatHubRef, type HubFileRef } from './hub/hub-ref.ts';
export type { CachedFile } from './download.ts';
export { downloadUrl } from './url-download.ts';
export { parseS3Ref, s3ClientFromEnv } from './s3-source.ts';
export {
  resolveNamedDataset,
  resolveNamedDatasetFiles,
  resolveDatasetFiles,
  namedDatasets,
  type NamedDataset,
  type NamedDatasetFile,
} from './named-datasets.ts';
export { loadRomanianLexicon, type RomanianLexicon } from './romanian-lexicon.ts';
export { loadBenchmarkResources } from './benchmark-resources.ts';
