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

/** How long raw per-item JSON under `runs/` is kept: records live on in `results/` parquet. */
export const RAW_ITEMS_EXPIRY_DAYS = 90;
/** Athena's query results are scratch: the API reads them once. */
export const ATHENA_RESULTS_EXPIRY_DAYS = 7;

/** Lifecycle rules: expire raw items and Athena scratch, abort stale multipart uploads. */
export function resultsLifecycleRules(): s3.LifecycleRule[] {
  return [
    { id: 'expire-raw-run-items', prefix: PREFIXES.runs, expiration: Duration.days(RAW_ITEMS_EXPIRY_DAYS) },
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
