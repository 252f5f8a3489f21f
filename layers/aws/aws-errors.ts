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
 * The client-side error codes that a later attempt may clear: throttling and contention (AWS SDK
 * for JavaScript v3, `@smithy/service-error-classification` THROTTLING_ERROR_CODES and
 * TRANSIENT_ERROR_CODES; DynamoDB's own ProvisionedThroughputExceeded, RequestLimitExceeded,
 * TransactionConflict and TransactionInProgress, "Error handling with DynamoDB").
 */
const RETRYABLE_CLIENT_CODES = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'RequestThrottledException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionConflictException',
  'TransactionInProgressException',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/**
 * Whether an AWS SDK v3 failure (or an error caused by one, followed through `cause`) is one no
 * retry will clear: the service blamed the request (`$fault: 'client'`: access denied, a table or
 * key that does not exist, a malformed request) and it is not throttling or contention. A network
 * failure or a server fault (`$fault: 'server'`) is not permanent; neither is an error that carries
 * no AWS fault at all.
 */
export function isPermanentAwsFailure(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; typeof e === 'object' && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const { $fault, $retryable } = e as { $fault?: unknown; $retryable?: unknown };
    if ($fault === undefined) continue;
    return $fault === 'client' && $retryable === undefined && !RETRYABLE_CLIENT_CODES.has(awsErrorName(e));
  }
  return false;
}
