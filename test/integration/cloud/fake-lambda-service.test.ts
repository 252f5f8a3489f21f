/**
 * The fake Lambda service (test/fakes/lambda-service.ts) against what Lambda does with
 * asynchronous events queued behind an environment whose runtime exits: each event is still
 * invoked, in a new environment, and its record reaches the destination. The runtime here is a
 * few lines polling the Runtime API (2018-06-01), ending its process after each event — before
 * answering (a crash) or after (the runner's own exit when it finds a survivor or a changed file).
 */
import { spawn } from 'node:child_process';
import { LambdaClient, InvokeCommand } from '@aws-sdk/client-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeLambdaService } from '../../fakes/lambda-service.ts';

const RUNTIME = `
const api = 'http://' + process.env.AWS_LAMBDA_RUNTIME_API + '/2018-06-01/runtime/invocation/';
const next = await fetch(api + 'next');
const id = next.headers.get('lambda-runtime-aws-request-id');
const event = await next.json();
if (event.exit === 'before') process.exit(3);
await fetch(api + id + '/response', { method: 'POST', body: JSON.stringify({ echo: event.n }) });
process.exit(75);
`;

let service: FakeLambdaService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function waitFor(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!done()) throw new Error(`timed out waiting for ${what}`);
}

describe('the fake Lambda service', () => {
  it('invokes asynchronous events queued behind a runtime that exited, each in a new environment', async () => {
    const records: Record<string, unknown>[] = [];
    service = new FakeLambdaService({
      start: (runtimeApi) =>
        spawn(process.execPath, ['--input-type=module', '-e', RUNTIME], { env: { AWS_LAMBDA_RUNTIME_API: runtimeApi }, stdio: ['ignore', 'pipe', 'pipe'] }),
      destination: async (record) => void records.push(record),
    });
    const { endpoint } = await service.listen();
    const lambda = new LambdaClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
    // Three events sent at once: the first ends its runtime after answering, the second crashes it
    // mid-invocation, the third must still run.
    for (const event of [{ n: 1 }, { n: 2, exit: 'before' }, { n: 3 }]) {
      await lambda.send(new InvokeCommand({ FunctionName: 'runner', InvocationType: 'Event', Payload: JSON.stringify(event) }));
    }
    await waitFor(() => records.length === 3 && (service as FakeLambdaService).idle, 'three invocation records');
    const outcomes = records.map((r) => ({
      n: (r.requestPayload as { n: number }).n,
      condition: (r.requestContext as { condition: string }).condition,
      error: (r.responseContext as { functionError?: string }).functionError,
    }));
    expect(outcomes).toEqual([
      { n: 1, condition: 'Success', error: undefined },
      { n: 2, condition: 'RetriesExhausted', error: 'Unhandled' },
      { n: 3, condition: 'Success', error: undefined },
    ]);
    expect(service.environments).toHaveLength(3);
    expect((records[1]?.responsePayload as { errorType: string }).errorType).toBe('Runtime.ExitError');
    lambda.destroy();
  }, 30_000);
});
