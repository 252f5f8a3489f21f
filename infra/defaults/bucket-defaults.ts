/** Secure defaults for S3 buckets, as pure functions (cdk-nag S1, S2, S10). */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';

/** Storage layout prefixes (DESIGN §5), shared by the IAM scoping, lifecycle and Glue tables. */
export const PREFIXES = {
  datasets: 'datasets/',
  runs: 'runs/',
  records: 'results/records/',
  metrics: 'results/metrics/',
  reports: 'reports/',
  athenaResults: 'athena-results/',
} as const;

/**
 * How long a run's working files under `runs/<id>/` are kept: per-item JSON (compacted into
 * `results/records/` Parquet by aggregate), part manifests, large generations, the task
 * snapshot and test files. What the API answers from for ever is kept outside `runs/`: the
 * manifest and summary copies under `results/runs/<id>/` (written by plan and aggregate),
 * `results/` and `reports/`. DLQs keep messages 14 days, so nothing redrivable needs them later.
 */
export const RUN_FILES_EXPIRY_DAYS = 90;
/** Athena's query results are scratch: the API reads them once. */
export const ATHENA_RESULTS_EXPIRY_DAYS = 7;

/**
 * Lifecycle rules: a run's working files under `runs/` expire after 90 days, whatever their
 * size, and Athena scratch after 7; stale multipart uploads are aborted. The kept manifest and
 * summary copies (`results/runs/`), records, metrics and reports stay: the API answers for old
 * runs from them.
 */
export function resultsLifecycleRules(): s3.LifecycleRule[] {
  return [
    { id: 'expire-raw-run-items', prefix: PREFIXES.runs, expiration: Duration.days(RUN_FILES_EXPIRY_DAYS) },
    { id: 'expire-athena-results', prefix: PREFIXES.athenaResults, expiration: Duration.days(ATHENA_RESULTS_EXPIRY_DAYS) },
    { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
  ];
}

/** Encrypted, private, TLS-only, owner-enforced; retained on stack deletion (it holds results). */
export function secureBucketProps(): s3.BucketProps {
  return {
    encryption: s3.BucketEncryption.S3_MANAGED,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    removalPolicy: RemovalPolicy.RETAIN,
  };
}

/** The results bucket: secure defaults, lifecycle rules and server access logs to `accessLogs`. */
export function resultsBucketProps(accessLogs: s3.IBucket): s3.BucketProps {
  return {
    ...secureBucketProps(),
    versioned: false,
    lifecycleRules: resultsLifecycleRules(),
    serverAccessLogsBucket: accessLogs,
    serverAccessLogsPrefix: 'results-bucket/',
  };
}

/** The access-log bucket: server access logging requires S3-managed keys and object writer ACLs off. */
export function accessLogBucketProps(): s3.BucketProps {
  return {
    ...secureBucketProps(),
    lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
  };
}
