/**
 * The execute function's dependencies (Lambda container image or Fargate consumer): the
 * container's sandbox (container-sandbox.ts) and the after-item check that discards a
 * container a program left something in.
 */
import { SqsWorkQueue } from '#aws/index.ts';
import { ContainerSandbox } from './container-sandbox.ts';
import { judgeRunner } from './judge-runner.ts';
import { RunContextCache } from '#app/cloud/context.ts';
import { ToolchainRecorder } from '#app/cloud/toolchain-record.ts';
import type { BlobStore } from '#core/ports.ts';
import { requireEnv } from '../shared/env.ts';
import type { AggregateMessage } from '#app/cloud/messages.ts';
import type { StageDeps } from '#app/cloud/stages.ts';
import type { HandoffDeps } from '#app/cloud/continuation.ts';
import { storageClients, type StorageClients } from '../shared/aws-clients.ts';
import { createObservability, type Observability } from '../shared/observability.ts';

export interface ExecuteHandlerDeps extends StageDeps {
  obs?: Observability;
  /** Runs after each item: the container check (discards a container left unclean). */
  afterItem?: () => Promise<unknown>;
  /** The runner is invoked asynchronously; its answers come back as invocation records (continuation.ts). */
  handoff?: HandoffDeps;
}

export function createExecuteDeps(env: NodeJS.ProcessEnv = process.env, clients?: StorageClients): ExecuteHandlerDeps {
  const obs = createObservability(env.POWERTOOLS_SERVICE_NAME ?? 'execute');
  const { sqs, store, ledger, parts } = clients ?? storageClients(obs, env);
  const log = (message: string, detail: Record<string, unknown>) => obs.logger.error(message, detail);
  const runner = judgeRunner(env, log);
  const sandbox = new ContainerSandbox({ store, env, log, ...(runner ? { runner: { runner: runner.runner, isolation: runner.isolation } } : {}) });
  return {
    obs,
    ...(runner?.handoff ? { handoff: runner.handoff } : {}),
    ledger,
    parts,
    // Only in a real Lambda or ECS container: elsewhere /tmp and the sandbox uid are shared
    // with unrelated processes, which the check would take for a program's leftovers.
    ...(env.AWS_LAMBDA_FUNCTION_NAME || env.ECS_CONTAINER_METADATA_URI_V4 ? { afterItem: () => sandbox.afterItem() } : {}),
    // A run's toolchain options (Kotlin language version) travel with each job (core engine); the
    // toolchain a job's language is judged with is recorded once per run, language and container.
    contexts: new RunContextCache({
      store,
      ledger,
      clock: () => new Date(),
      executor: () => sandbox.get(),
      toolchains: toolchainRecorder(store, env, (m, d) => obs.logger.warn(m, d)),
    }),
    aggregateQueue: new SqsWorkQueue<AggregateMessage>({ client: sqs, queueUrl: requireEnv('AGGREGATE_QUEUE_URL', env) }),
  };
}

/** The judge's toolchain records (layers/app/cloud/toolchain-record.ts), naming its image and function. */
export function toolchainRecorder(
  store: BlobStore,
  env: NodeJS.ProcessEnv,
  log: (message: string, detail: Record<string, unknown>) => void,
): ToolchainRecorder {
  const recordedBy = env.AWS_LAMBDA_FUNCTION_NAME ?? (env.ECS_CONTAINER_METADATA_URI_V4 ? 'fargate task' : undefined);
  return new ToolchainRecorder({
    store,
    clock: () => new Date(),
    ...(env.POLYEVAL_EXECUTOR_IMAGE ? { image: env.POLYEVAL_EXECUTOR_IMAGE } : {}),
    ...(recordedBy ? { recordedBy } : {}),
    log,
  });
}
