/**
 * Where the deployed functions may read `s3://` datasets and replay files: the results bucket's
 * `datasets/` and `runs/` (the grants of infra/pipeline.ts), and whole buckets a deployment
 * names with `-c datasetBuckets=a,b` (infra/config.ts). The stack tells the functions that start
 * runs (api, nightly) in `READABLE_S3`, so a run naming any other object is refused when it is
 * started, naming the setting, instead of ending `SE` on an AccessDenied deep in plan.
 */
import { InputError } from '#core/errors.ts';

/** The environment variable holding the readable locations. */
export const READABLE_S3_ENV = 'READABLE_S3';
/** The context key that adds buckets (docs/aws.md). */
export const DATASET_BUCKETS_KEY = 'datasetBuckets';

/** A bucket and the key prefix under which objects are readable (`''`: the whole bucket). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

/** `bucket/prefix` entries, comma-separated: the value of {@link READABLE_S3_ENV}. */
export function formatReadableS3(locations: readonly S3Location[]): string {
  return locations.map((l) => `${l.bucket}/${l.prefix}`).join(',');
}

/** Parses {@link formatReadableS3}'s text. */
export function parseReadableS3(text: string): S3Location[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const at = entry.indexOf('/');
      return at < 0 ? { bucket: entry, prefix: '' } : { bucket: entry.slice(0, at), prefix: entry.slice(at + 1) };
    });
}

/**
 * Refuses an `s3://` reference the deployment cannot read; any other reference passes.
 * @throws InputError naming the field, the bucket and the `datasetBuckets` setting
 * @example
 * checkReadableS3('s3://team-data/rocode.jsonl', 'benchmark', parseReadableS3('results/datasets/,results/runs/'))
 * // InputError: … deploy with -c datasetBuckets=team-data …
 */
export function checkReadableS3(ref: string, field: string, readable: readonly S3Location[]): void {
  const m = /^s3:\/\/([^/]+)\/(.*)$/.exec(ref);
  if (!m) return;
  const [, bucket = '', key = ''] = m;
  if (readable.some((l) => l.bucket === bucket && key.startsWith(l.prefix))) return;
  const where = readable.map((l) => `s3://${l.bucket}/${l.prefix}`).join(', ');
  const own = readable.filter((l) => l.bucket === bucket && l.prefix !== '');
  throw new InputError(
    own.length > 0
      ? `${ref}: this deployment reads only ${own.map((l) => l.prefix).join(' and ')} of bucket ${bucket}; put the file there, or deploy with -c ${DATASET_BUCKETS_KEY}=<another bucket> and use that`
      : `${ref}: this deployment may not read bucket ${bucket} (it reads ${where}); deploy with -c ${DATASET_BUCKETS_KEY}=${bucket} to let its functions read it`,
    { field },
  );
}
