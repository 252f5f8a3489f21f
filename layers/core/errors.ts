/**
 * The error hierarchy of polyeval. `InputError` is the user's fault (exit 2, message names
 * file, line and field); `HarnessError` is ours (exit 1, with its cause).
 */
import type { TokenUsage } from './types.ts';

export interface InputLocation {
  file?: string;
  line?: number;
  field?: string;
}

export class PolyevalError extends Error {
  override name = 'PolyevalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Bad input from a user: a file, flag or row that is wrong. */
export class InputError extends PolyevalError {
  override name = 'InputError';
  readonly location: InputLocation;
  /** The message without its location (what is wrong, not where). */
  readonly detail: string;
  constructor(message: string, location: InputLocation = {}, options?: { cause?: unknown }) {
    super(formatLocated(message, location), options);
    this.location = location;
    this.detail = message;
  }
}

/** The harness itself failed (sandbox, store, …): never charged to the model. */
export class HarnessError extends PolyevalError {
  override name = 'HarnessError';
}

/**
 * An infrastructure failure that passes with time (a throttled or not-yet-active runner
 * function, a transaction conflict): never a verdict. The cloud stages let it fail the queue
 * message, which comes back after its visibility timeout; the sample is neither recorded `SE`
 * nor charged again (its generation is already in the message).
 */
export class TransientError extends HarnessError {
  override name = 'TransientError';
}

/**
 * A model call still throttled when its retries were spent: the model's quota (requests or
 * tokens per minute) is taken for now. Where a queue holds the item (the cloud's generate
 * stage) it goes back with a growing back-off and is generated later — never a verdict.
 */
export class QuotaExhausted extends TransientError {
  override name = 'QuotaExhausted';
}

/**
 * A stored record (manifest, item, summary, part, queue message) that does not match its
 * schema: ours, not the user's, so a harness fault. Names the key and the field; the record
 * is left where it is (never overwritten or dropped).
 */
export class CorruptRecordError extends HarnessError {
  override name = 'CorruptRecordError';
  constructor(
    readonly key: string,
    readonly field: string | undefined,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`stored record ${key}${field ? `, field "${field}"` : ''}: ${reason}`, options);
  }
}

/** A model provider failed after its retries; `retryable` says whether a later attempt may succeed. */
export class ProviderError extends PolyevalError {
  override name = 'ProviderError';
  readonly retryable: boolean;
  readonly status?: number;
  /** The server said "slow down" (429, ThrottlingException): a quota, not a fault of the item. */
  readonly throttled: boolean;
  /** Tokens billed by the failed call's attempts that got an answer (a 200 whose body was unusable). */
  billed?: TokenUsage;
  constructor(message: string, opts: { retryable: boolean; status?: number; cause?: unknown; billed?: TokenUsage; throttled?: boolean }) {
    super(message, { cause: opts.cause });
    this.retryable = opts.retryable;
    this.throttled = opts.throttled ?? false;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.billed !== undefined) this.billed = opts.billed;
  }
}

/** The run stopped on purpose (cost cap, cancellation); it can be resumed. */
export class RunStopped extends PolyevalError {
  override name = 'RunStopped';
}

function formatLocated(message: string, loc: InputLocation): string {
  const where = [loc.file, loc.line !== undefined ? `line ${loc.line}` : undefined, loc.field ? `field "${loc.field}"` : undefined].filter(Boolean).join(', ');
  return where ? `${where}: ${message}` : message;
}
