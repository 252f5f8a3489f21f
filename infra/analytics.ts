/**
 * Glue database + `records`/`metrics` tables over `results/` with partition projection (no
 * crawler ever runs), and an Athena workgroup with a bytes-scanned cutoff, enforced settings and
 * its own encrypted result prefix.
 *
 * Projection: `benchmark` is an enum of the benchmark registry's ids; `run_id` is injected, so
 * Athena cannot enumerate it: every query must name its run ids with static equality
 * (`WHERE run_id IN ('…', …)`), or fails with CONSTRAINT_VIOLATION (Athena user guide, "Use
 * dynamic ID partitioning"). The API's leaderboard takes the ids from the ledger. That bounds
 * every scan to the runs asked for.
 *
 * The database and workgroup are named after the stack, so two stacks share an account.
 */
import { Stack } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { PREFIXES } from './defaults/bucket-defaults.ts';
import { grantObjectAccess } from './grants.ts';
import { METRIC_COLUMN_TYPES, RECORD_COLUMN_TYPES, glueColumns, type GlueType } from './table-columns.ts';

/**
 * The Glue database of a stack: its name in lower case, `_` for anything else (Athena accepts
 * lower-case letters, digits and `_` in database names). `Polyeval` → `polyeval`.
 */
export function glueDatabaseName(stackName: string): string {
  return stackName.toLowerCase().replace(/[^a-z0-9_]/g, '_');
}

/** The Athena workgroup of a stack: its name (stack names are valid workgroup names). */
export function athenaWorkGroupName(stackName: string): string {
  return stackName;
}

/** Table parameters enabling partition projection over `<prefix>benchmark=…/run_id=…/`. */
export function projectionParameters(bucketName: string, prefix: string, benchmarks: readonly string[]): Record<string, string> {
  return {
    classification: 'parquet',
    EXTERNAL: 'TRUE',
    'projection.enabled': 'true',
    'projection.benchmark.type': 'enum',
    'projection.benchmark.values': benchmarks.join(','),
    'projection.run_id.type': 'injected',
    'storage.location.template': `s3://${bucketName}/${prefix}benchmark=\${benchmark}/run_id=\${run_id}/`,
  };
}

/** Properties of {@link Analytics}. */
export interface AnalyticsProps {
  bucket: s3.IBucket;
  benchmarks: readonly string[];
  bytesScannedCutoff: number;
}

/** The Glue catalog and the Athena workgroup over the results bucket. */
export class Analytics extends Construct {
  readonly database: glue.CfnDatabase;
  readonly workgroup: athena.CfnWorkGroup;
  /** Glue database name, for the functions' environment. */
  readonly databaseName: string;
  /** Athena workgroup name, for the functions' environment. */
  readonly workGroupName: string;
  private readonly bucket: s3.IBucket;
  private readonly tableNames: string[] = [];

  constructor(scope: Construct, id: string, props: AnalyticsProps) {
    super(scope, id);
    this.bucket = props.bucket;
    const { account, stackName } = Stack.of(this);
    this.databaseName = glueDatabaseName(stackName);
    this.workGroupName = athenaWorkGroupName(stackName);
    this.database = new glue.CfnDatabase(this, 'Database', {
      catalogId: account,
      databaseInput: { name: this.databaseName, description: 'polyeval records and metrics (partition projection, no crawler)' },
    });
    this.addTable('records', PREFIXES.records, RECORD_COLUMN_TYPES, props.benchmarks);
    this.addTable('metrics', PREFIXES.metrics, METRIC_COLUMN_TYPES, props.benchmarks);

    this.workgroup = new athena.CfnWorkGroup(this, 'WorkGroup', {
      name: this.workGroupName,
      description: 'polyeval queries: bytes-scanned cutoff, enforced settings, encrypted results',
      state: 'ENABLED',
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        bytesScannedCutoffPerQuery: props.bytesScannedCutoff,
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: `s3://${props.bucket.bucketName}/${PREFIXES.athenaResults}`,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
  }

  private addTable(name: string, prefix: string, types: Record<string, GlueType>, benchmarks: readonly string[]): void {
    const table = new glue.CfnTable(this, `${name.charAt(0).toUpperCase()}${name.slice(1)}Table`, {
      catalogId: Stack.of(this).account,
      databaseName: this.databaseName,
      tableInput: {
        name,
        tableType: 'EXTERNAL_TABLE',
        parameters: projectionParameters(this.bucket.bucketName, prefix, benchmarks),
        partitionKeys: [
          { name: 'benchmark', type: 'string' },
          { name: 'run_id', type: 'string' },
        ],
        storageDescriptor: {
          location: `s3://${this.bucket.bucketName}/${prefix}`,
          inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
          serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
          columns: glueColumns(types),
        },
      },
    });
    table.addResourceDependency(this.database);
    this.tableNames.push(name);
  }

  /** Lets `role` run queries in the workgroup over the two tables and read their results. */
  grantQuery(role: iam.IRole): void {
    const { partition, region, account } = Stack.of(this);
    const glueArn = (resource: string): string => `arn:${partition}:glue:${region}:${account}:${resource}`;
    const statements = [
      new iam.PolicyStatement({
        actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults', 'athena:StopQueryExecution'],
        resources: [`arn:${partition}:athena:${region}:${account}:workgroup/${this.workGroupName}`],
      }),
      new iam.PolicyStatement({
        actions: ['glue:GetDatabase', 'glue:GetTable'],
        resources: [glueArn('catalog'), glueArn(`database/${this.databaseName}`), ...this.tableNames.map((t) => glueArn(`table/${this.databaseName}/${t}`))],
      }),
      // Athena writes a large result in parts under the caller's identity (Athena user guide,
      // "Access to Amazon S3": the results location needs the multipart actions too).
      new iam.PolicyStatement({ actions: ['s3:GetBucketLocation', 's3:ListBucketMultipartUploads'], resources: [this.bucket.bucketArn] }),
      new iam.PolicyStatement({
        actions: ['s3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
        resources: [this.bucket.arnForObjects(`${PREFIXES.athenaResults}*`)],
      }),
    ];
    for (const statement of statements) role.addToPrincipalPolicy(statement);
    grantObjectAccess(role, this.bucket, {
      read: ['results/*', `${PREFIXES.athenaResults}*`],
      write: [`${PREFIXES.athenaResults}*`],
      list: ['results/', PREFIXES.athenaResults],
    });
  }
}
