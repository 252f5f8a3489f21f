/**
 * The execute function's dependencies (Lambda container image or Fargate consumer): the
 * sandbox executor is created once per container, with a writable copy of the image's
 * read-only cache (POLYEVAL_CACHE: the prebuilt supervisor, the C++ PCH) under /tmp.
 */
import { cp, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { SqsWorkQueue } from '#aws/index.ts';
import type { BlobStore, Executor } from '#core/ports.ts';
import { RunContextCache } from '#app/cloud-context.ts';
import { requireEnv } from '#app/cloud-env.ts';
import type { AggregateMessage } from '#app/cloud-messages.ts';
import { writableCacheDir } from '#app/cloud-runtime.ts';
import { storeTestLoader } from '#app/cloud-test-files.ts';
import type { StageDeps } from '#app/cloud-stages.ts';
import { kotlinFlags } from '#app/kotlin-flags.ts';
import { storageClients, type StorageClients } from '../shared/aws-clients.ts';
import { createObservability, type Observability } from '../shared/observability.ts';

export interface ExecuteHandlerDeps extends StageDeps {
  obs?: Observability;
}

/** The sandbox executor of this container, built on first use; large tests are read from the store. */
export function containerExecutor(store: BlobStore, env: NodeJS.ProcessEnv = process.env): () => Promise<Executor> {
  let executor: Promise<Executor> | undefined;
  return () => {
    executor ??= (async () => {
      const cacheDir = writableCacheDir();
      await mkdir(cacheDir, { recursive: true });
      const imageCache = env.POLYEVAL_CACHE;
      if (imageCache && imageCache !== cacheDir && existsSync(imageCache)) await cp(imageCache, cacheDir, { recursive: true, force: false, errorOnExist: false });
      const { createSandboxExecutor } = await import('#sandbox/index.ts');
      return createSandboxExecutor({ cacheDir, loadTestFile: storeTestLoader(store) });
    })();
    executor.catch(() => (executor = undefined));
    return executor;
  };
}

export function createExecuteDeps(env: NodeJS.ProcessEnv = process.env, clients?: StorageClients): ExecuteHandlerDeps {
  const obs = createObservability(env.POWERTOOLS_SERVICE_NAME ?? 'execute');
  const { sqs, store, ledger, parts } = clients ?? storageClients(obs, env);
  return {
    obs,
    ledger,
    parts,
    contexts: new RunContextCache({ store, ledger, clock: () => new Date(), executor: containerExecutor(store, env) }),
    aggregateQueue: new SqsWorkQueue<AggregateMessage>({ client: sqs, queueUrl: requireEnv('AGGREGATE_QUEUE_URL', env) }),
    prepareRun: async (manifest) => {
      // One sample at a time per container (batch size 1), so per-process flags are safe.
      const { configureKotlin } = await import('#sandbox/languages/kotlin.ts');
      configureKotlin({ flags: kotlinFlags(manifest.kotlin_language_version) });
    },
  };
}
