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
