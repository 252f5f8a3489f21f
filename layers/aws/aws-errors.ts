import { isClockSkewError, isRetryableByTrait, isThrottlingError, isTransientError } from '@smithy/service-error-classification';
import type { SdkError } from '@smithy/types';

/**
 * Reading AWS SDK v3 errors without depending on each service's exception classes:
 * every service exception carries `name` (the error code) and `$metadata`.
 */

/** The AWS error code of an SDK exception (`NoSuchKey`, `ConditionalCheckFailedException`, …). */
export function awsErrorName(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { name, Code } = error as { name?: unknown; Code?: unknown };
    if (typeof Code === 'string' && Code !== '') return Code;
    if (typeof name === 'string') return name;
  }
  return String(error);
}

/**
 * DynamoDB's transaction conflict: retryable by DynamoDB's own account ("Error handling with
 * DynamoDB": TransactionConflictException, "retry the request") but in none of the SDK's lists
 * below, since DynamoDB answers it with HTTP 400.
 */
const CONFLICT_CODES = new Set(['TransactionConflictException']);

/**
 * Whether an AWS SDK v3 failure (or an error caused by one, followed through `cause`) is one no
 * retry will clear: the service blamed the request (`$fault: 'client'`: access denied, a table or
 * key that does not exist, a malformed request) and the SDK's own retry strategy would not retry
 * it — `@smithy/service-error-classification` 2.1.5, the classifiers its standard retry strategy
 * asks (`isRetryableByTrait`, `isClockSkewError`, `isThrottlingError`: throttling codes or HTTP 429,
 * `isTransientError`: timeouts, 5xx, dropped connections) — nor is it a transaction conflict. A
 * server fault (`$fault: 'server'`) is not permanent; neither is an error that carries no AWS
 * fault at all (the network, our own).
 */
export function isPermanentAwsFailure(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const fault = (e as { $fault?: unknown }).$fault;
    if (fault === undefined) continue;
    const sdkError = e as SdkError;
    const retried = isRetryableByTrait(sdkError) || isClockSkewError(sdkError) || isThrottlingError(sdkError) || isTransientError(sdkError);
    return fault === 'client' && !retried && !CONFLICT_CODES.has(awsErrorName(e));
  }
  return false;
}
