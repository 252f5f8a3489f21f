/**
 * `s3://` datasets and replay files outside the results bucket (`-c datasetBuckets=a,b`): read
 * on the named buckets for the functions that read datasets and replay files (plan, generate and
 * the batch stage), and `READABLE_S3` for the functions that start runs (api, nightly), so a run
 * naming an object the deployment cannot read is refused when it is started
 * (layers/app/cloud/readable-s3.ts). Without the setting only `datasets/` and `runs/` of the
 * results bucket are readable, as the stage grants say.
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { formatReadableS3, READABLE_S3_ENV } from '../layers/app/cloud/readable-s3.ts';
import { acknowledgeResources } from './nag.ts';
import type { PolyevalFunction } from './node-function.ts';

/** The `READABLE_S3` environment of a function that starts runs. */
export function readableS3Environment(bucket: s3.IBucket, datasetBuckets: readonly string[]): Record<string, string> {
  const results = [
    { bucket: bucket.bucketName, prefix: 'datasets/' },
    { bucket: bucket.bucketName, prefix: 'runs/' },
  ];
  return { [READABLE_S3_ENV]: formatReadableS3([...results, ...datasetBuckets.map((name) => ({ bucket: name, prefix: '' }))]) };
}

/** Lets each reader get and list the objects of the named buckets. */
export function grantDatasetBuckets(readers: readonly PolyevalFunction[], datasetBuckets: readonly string[]): void {
  if (datasetBuckets.length === 0) return;
  for (const reader of readers) {
    const partition = Stack.of(reader).partition;
    const objects = datasetBuckets.map((name) => `arn:${partition}:s3:::${name}/*`);
    reader.role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'ReadDatasetBuckets', actions: ['s3:GetObject'], resources: objects }));
    // ListBucket makes a missing key NoSuchKey (named in the error) instead of AccessDenied.
    reader.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ListDatasetBuckets',
        actions: ['s3:ListBucket'],
        resources: datasetBuckets.map((name) => `arn:${partition}:s3:::${name}`),
      }),
    );
    acknowledgeResources(
      reader.role,
      objects,
      'Datasets and replay files a run names, in the buckets the deployment lists in datasetBuckets; any key of them.',
    );
  }
}
