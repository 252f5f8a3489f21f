/**
 * Grants object access on the results bucket by key pattern, with exact actions, and
 * acknowledges the matching cdk-nag IAM5 findings (one per pattern, on this role only): the
 * patterns name a prefix of DESIGN §5's layout, the run and task ids below it are known only at
 * run time.
 */
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { listBucket, readObjects, writeObjects } from './defaults/iam-statements.ts';
import { acknowledgeObjectPatterns } from './nag.ts';

/** Key patterns to read and write, and prefixes to list. */
export interface ObjectAccess {
  read?: readonly string[];
  write?: readonly string[];
  /**
   * Prefixes the role lists. Listing, like reading a key that may be missing, needs
   * `s3:ListBucket` on the whole bucket (see {@link listBucket}); the prefixes document intent.
   */
  list?: readonly string[];
}

/** Adds the statements of `access` to `role` and acknowledges their wildcard object findings. */
export function grantObjectAccess(role: iam.IRole, bucket: s3.IBucket, access: ObjectAccess): void {
  const read = access.read ?? [];
  const write = access.write ?? [];
  if (read.length > 0) role.addToPrincipalPolicy(readObjects(bucket, read));
  if (write.length > 0) role.addToPrincipalPolicy(writeObjects(bucket, write));
  // Any reader may ask for a key that is not there yet: it must get NoSuchKey, not AccessDenied.
  if (read.length > 0 || (access.list?.length ?? 0) > 0) role.addToPrincipalPolicy(listBucket(bucket));
  const patterns = [...new Set([...read, ...write])];
  acknowledgeObjectPatterns(
    role,
    bucket,
    patterns,
    `Object access is limited to the key patterns ${patterns.join(', ')} of the results bucket; the run and task ids below them are known only at run time.`,
  );
}
