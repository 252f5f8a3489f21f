/**
 * Synchronous invocation of a function that is not `Active`. A function idle long enough for
 * Lambda to reclaim its resources (a VPC function's network interfaces) is `Inactive`: "when
 * you try to invoke a function that is inactive, the invocation fails and Lambda sets the
 * function to pending state until the function resources are recreated"; while `Pending`,
 * invocations fail too. The page gives no duration for the re-creation; the simulation
 * assumes {@link REACTIVATION_MS} (a VPC function's interfaces take tens of seconds).
 * Pages: "Lambda function states", https://docs.aws.amazon.com/lambda/latest/dg/functions-states.html;
 * Invoke API errors (ResourceNotReadyException, 502), https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html
 */

/** Assumed: how long an inactive function stays Pending after the invocation that woke it. */
export const REACTIVATION_MS = 90_000;

export type FunctionState = 'Active' | 'Inactive' | 'Pending';

export class FunctionStates {
  readonly #pendingUntil = new Map<string, number>();
  readonly #state = new Map<string, FunctionState>();

  markInactive(fn: string): void {
    this.#state.set(fn, 'Inactive');
  }

  /** The state an invocation at `nowMs` meets; an invocation of an Inactive function starts its re-creation. */
  invoke(fn: string, nowMs: number): FunctionState {
    const state = this.#state.get(fn) ?? 'Active';
    if (state === 'Inactive') {
      this.#state.set(fn, 'Pending');
      this.#pendingUntil.set(fn, nowMs + REACTIVATION_MS);
      return 'Inactive';
    }
    if (state === 'Pending') {
      if (nowMs < (this.#pendingUntil.get(fn) ?? 0)) return 'Pending';
      this.#state.set(fn, 'Active');
    }
    return 'Active';
  }
}
