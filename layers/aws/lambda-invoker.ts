/**
 * Synchronous invocation of one Lambda function (the judge calling its runner): the payload
 * out, the payload back and, when the function failed, Lambda's `FunctionError` (the answer is
 * then `{ errorType, errorMessage }`). Takes its client as an option, so tests point it at a
 * local server speaking the Invoke API.
 *
 * Errors of the Invoke API that pass with time are a {@link TransientError}, so the judge's
 * message goes back to its queue instead of the sample becoming `SE` (Lambda API reference,
 * "Invoke", Errors: https://docs.aws.amazon.com/lambda/latest/api/API_Invoke.html):
 * - `TooManyRequestsException` (429): the account's or the function's concurrency is used up
 *   ("Understanding Lambda function scaling"); the SDK has already retried it `maxAttempts` times;
 * - `ResourceNotReadyException` (502) and `ResourceConflictException` (409): the function is
 *   `Inactive` or `Pending` — a function idle long enough has its VPC resources reclaimed, and
 *   "when you try to invoke a function that is inactive, the invocation fails and Lambda sets
 *   the function to pending state until the function resources are recreated" ("Lambda
 *   function states": https://docs.aws.amazon.com/lambda/latest/dg/functions-states.html);
 * - `EC2ThrottledException`, `ENILimitReachedException`, `SubnetIPAddressLimitReachedException`
 *   (502) and `ServiceException` (500): the network interfaces of a VPC function, or Lambda itself.
 */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { TransientError } from '#core/errors.ts';
import { awsErrorName } from './aws-errors.ts';

/** What one invocation returned. */
export interface InvokeResult {
  /** Set when the function failed (`Unhandled`, or the runtime's error type). */
  functionError?: string;
  payload: string;
}

export interface LambdaInvokerOptions {
  client: Pick<LambdaClient, 'send'>;
  /** Function name or ARN; the judge may invoke exactly this one (infra/runners.ts). */
  functionName: string;
}

/** Invoke API error codes after which a later delivery of the same work may succeed. */
export const TRANSIENT_INVOKE_ERRORS: ReadonlySet<string> = new Set([
  'TooManyRequestsException',
  'ResourceNotReadyException',
  'ResourceConflictException',
  'EC2ThrottledException',
  'ENILimitReachedException',
  'SubnetIPAddressLimitReachedException',
  'ServiceException',
]);

export class LambdaInvoker {
  constructor(private readonly options: LambdaInvokerOptions) {}

  get functionName(): string {
    return this.options.functionName;
  }

  async invoke(payload: string): Promise<InvokeResult> {
    const out = await this.send(payload, 'RequestResponse');
    return { ...(out.FunctionError ? { functionError: out.FunctionError } : {}), payload: out.Payload ? new TextDecoder().decode(out.Payload) : '' };
  }

  /**
   * Asynchronous invocation (`InvocationType: Event`): Lambda queues the event and answers 202
   * at once; the function's answer goes to its destination (layers/app/cloud/runner-handoff.ts).
   * The same errors as {@link invoke} are transient.
   */
  async invokeEvent(payload: string): Promise<void> {
    const out = await this.send(payload, 'Event');
    if (out.StatusCode !== undefined && out.StatusCode !== 202)
      throw new TransientError(`runner ${this.options.functionName}: an asynchronous invoke answered ${out.StatusCode}, not 202`);
  }

  /** One Invoke; a throttle or a function not ready yet is transient (the item goes back to its queue). */
  private async send(payload: string, type: 'RequestResponse' | 'Event') {
    try {
      return await this.options.client.send(
        new InvokeCommand({ FunctionName: this.options.functionName, InvocationType: type, Payload: new TextEncoder().encode(payload) }),
      );
    } catch (error) {
      const code = awsErrorName(error);
      if (TRANSIENT_INVOKE_ERRORS.has(code))
        throw new TransientError(`runner ${this.options.functionName} not invocable now (${code}): the item goes back to its queue`, { cause: error });
      throw error;
    }
  }
}
