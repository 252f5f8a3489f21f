/**
 * Synchronous invocation of a function that is not `Active`. A VPC function idle for 14 days
 * has its Hyperplane network interfaces reclaimed and is `Inactive`; "the next invocation
 * attempt will fail, and the function re-enters the Pending state until Lambda completes the
 * creation or allocation of a Hyperplane ENI" ("Giving Lambda functions access to resources in
 * an Amazon VPC", ENI lifecycle; "Lambda function states": "when you try to invoke a function
 * that is inactive, the invocation fails and Lambda sets the function to pending state until
 * the function resources are recreated"). While `Pending`, "Lambda does not invoke a function
 * ... Any invocations ... will fail".
 * How they fail (Invoke API errors): the invocation that finds the function Inactive gets
 * `ResourceNotReadyException` (502, "the function is inactive and its VPC connection is no
 * longer available"), one while it is Pending `ResourceConflictException` (409, "The operation
 * cannot be performed at this time. The function is currently in the following state: Pending",
 * Lambda troubleshooting guide). SDK v3 retries the 502 as a transient error and not the 409.
 * How long Pending lasts: creating an ENI "can take several minutes" (VPC page); the simulation
 * assumes {@link REACTIVATION_MS}.
 * Pages: https://docs.aws.amazon.com/lambda/latest/dg/functions-states.html;
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-vpc.html;
 * https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html;
 * https://docs.aws.amazon.com/lambda/latest/dg/troubleshooting-invocation.html
 */

/** Assumed ("several minutes"): how long an inactive function stays Pending after the invocation that woke it. */
export const REACTIVATION_MS = 5 * 60_000;

export type FunctionState = 'Active' | 'Inactive' | 'Pending';

/** The Invoke API's error for an invocation that met a function in `state` (not Active). */
export function notActiveError(fn: string, state: Exclude<FunctionState, 'Active'>): Error {
  return state === 'Inactive'
    ? Object.assign(new Error(`function ${fn} is inactive and its VPC connection is no longer available`), { name: 'ResourceNotReadyException', status: 502 })
    : Object.assign(new Error(`The operation cannot be performed at this time. The function is currently in the following state: Pending (${fn})`), {
        name: 'ResourceConflictException',
        status: 409,
      });
}

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
