/**
 * Synchronous invocation of one Lambda function (the judge calling its runner): the payload
 * out, the payload back and, when the function failed, Lambda's `FunctionError` (the answer is
 * then `{ errorType, errorMessage }`). Takes its client as an option, so tests point it at a
 * local server speaking the Invoke API.
 */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';

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

export class LambdaInvoker {
  constructor(private readonly options: LambdaInvokerOptions) {}

  get functionName(): string {
    return this.options.functionName;
  }

  async invoke(payload: string): Promise<InvokeResult> {
    const out = await this.options.client.send(new InvokeCommand({ FunctionName: this.options.functionName, InvocationType: 'RequestResponse', Payload: new TextEncoder().encode(payload) }));
    return { ...(out.FunctionError ? { functionError: out.FunctionError } : {}), payload: out.Payload ? new TextDecoder().decode(out.Payload) : '' };
  }
}
