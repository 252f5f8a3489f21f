/**
 * Makes this executor a judge: when `RUNNER_FUNCTION_NAME` names the language's runner
 * function (infra/runners.ts sets it), samples' programs run there — a function whose role may
 * do nothing, in subnets with no route — and this container only reads tests, compares outputs
 * (running checker programs in its own sandbox) and records verdicts. Without it (a local
 * harness, an older stack) programs run in this container's sandbox as before.
 *
 * With `RUNNER_HANDOFF=async` (the Lambda judge; infra/runners.ts) the judge invokes its runner
 * asynchronously and returns; the runner's answer comes back through its destination queue
 * (layers/app/cloud/runner-handoff.ts). The Fargate lane, which pays for its task whether it
 * waits or not, invokes synchronously.
 */
import { LambdaClient } from '@aws-sdk/client-lambda';
import { LambdaInvoker } from '#aws/index.ts';
import { LAMBDA_RUNNER_ISOLATION, LambdaProgramRunner } from '#app/cloud/lambda-runner.ts';
import { handoffInvoke } from '#app/cloud/runner-handoff.ts';
import type { HandoffDeps } from '#app/cloud/continuation.ts';
import type { ContainerSandboxOptions } from './container-sandbox.ts';

export type JudgeRunner = NonNullable<ContainerSandboxOptions['runner']> & { handoff?: HandoffDeps };

export function judgeRunner(
  env: NodeJS.ProcessEnv,
  log: (message: string, detail: Record<string, unknown>) => void,
  client?: LambdaClient,
): JudgeRunner | undefined {
  const functionName = env['RUNNER_FUNCTION_NAME'];
  if (!functionName) return undefined;
  // A sync invoke waits for the whole item: no SDK-level timeout, retries for throttling only.
  const invoker = new LambdaInvoker({ client: client ?? new LambdaClient({ maxAttempts: 3 }), functionName });
  const sync = (payload: string) => invoker.invoke(payload);
  const handsOff = env['RUNNER_HANDOFF'] === 'async';
  const runner = new LambdaProgramRunner({
    invoke: handsOff ? handoffInvoke(sync) : sync,
    functionName,
    onDiscard: (integrity) => log('runner left something behind after an item and ended its environment', { functionName, ...integrity }),
  });
  return { runner, isolation: LAMBDA_RUNNER_ISOLATION, ...(handsOff ? { handoff: { invokeEvent: (payload: string) => invoker.invokeEvent(payload) } } : {}) };
}
