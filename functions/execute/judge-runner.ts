/**
 * Makes this executor a judge: when `RUNNER_FUNCTION_NAME` names the language's runner
 * function (infra/runners.ts sets it), samples' programs run there — a function whose role may
 * do nothing, in subnets with no route — and this container only reads tests, compares outputs
 * (running checker programs in its own sandbox) and records verdicts. Without it (a local
 * harness, an older stack) programs run in this container's sandbox as before.
 */
import { LambdaClient } from '@aws-sdk/client-lambda';
import { LambdaInvoker } from '#aws/index.ts';
import { LAMBDA_RUNNER_ISOLATION, LambdaProgramRunner } from '#app/cloud/lambda-runner.ts';
import type { ContainerSandboxOptions } from './container-sandbox.ts';

export function judgeRunner(env: NodeJS.ProcessEnv, log: (message: string, detail: Record<string, unknown>) => void): ContainerSandboxOptions['runner'] {
  const functionName = env['RUNNER_FUNCTION_NAME'];
  if (!functionName) return undefined;
  // A sync invoke waits for the whole item: no SDK-level timeout, retries for throttling only.
  const invoker = new LambdaInvoker({ client: new LambdaClient({ maxAttempts: 3 }), functionName });
  const runner = new LambdaProgramRunner({
    invoke: (payload) => invoker.invoke(payload),
    functionName,
    onDiscard: (integrity) => log('runner left something behind after an item and ended its environment', { functionName, ...integrity }),
  });
  return { runner, isolation: LAMBDA_RUNNER_ISOLATION };
}
