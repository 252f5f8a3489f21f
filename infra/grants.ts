/**
 * Grants object access on the results bucket by key pattern, with exact actions, and
 * acknowledges the matching cdk-nag IAM5 findings (one per pattern, on this role only): the
 * patterns name a prefix of DESIGN §5's layout, the run and task ids below it are known only at
 * run time.
 */
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { listPrefixes, readObjects, writeObjects } from './defaults/iam-statements.ts';
import { acknowledgeObjectPatterns } from './nag.ts';

/** Key patterns to read and write, and prefixes to list. */
export interface ObjectAccess {
  read?: readonly string[];
  write?: readonly string[];
  list?: readonly string[];
}

/** Adds the statements of `access` to `role` and acknowledges their wildcard object findings. */
export function grantObjectAccess(role: iam.IRole, bucket: s3.IBucket, access: ObjectAccess): void {
  const read = access.read ?? [];
  const write = access.write ?? [];
  if (read.length > 0) role.addToPrincipalPolicy(readObjects(bucket, read));
  if (write.length > 0) role.addToPrincipalPolicy(writeObjects(bucket, write));
  if (access.list && access.list.length > 0) role.addToPrincipalPolicy(listPrefixes(bucket, access.list));
  const patterns = [...new Set([...read, ...write])];
  acknowledgeObjectPatterns(
    role,
    bucket,
    patterns,
    `Object access is limited to the key patterns ${patterns.join(', ')} of the results bucket; the run and task ids below them are known only at run time.`,
  );
}
