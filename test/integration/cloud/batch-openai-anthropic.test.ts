// `remote run --batch` with openai: and anthropic: models through the deployed pipeline on
// moto_server: the real api, plan, generate, aggregate and batch-stage handlers; the keys read
// from moto's SSM under the deployment's path (functions/shared/provider-env.ts), as the
// deployed generate and batch functions read them; the OpenAI Batch and Anthropic Message
// Batches fakes for the batch runs, their on-demand fakes for the same answers on demand.
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SqsWorkQueue } from '#aws/index.ts';
import { createCloudBatchClient } from '#app/cloud/batch-clients.ts';
import { RunContextCache } from '#app/cloud/context.ts';
import { costOfManifest } from '#app/cloud/cost.ts';
import type { AggregateMessage, GeneratedMessage } from '#app/cloud/messages.ts';
import { cloudKeyHosts, createCloudProvider } from '#app/cloud/provider.ts';
import { parseBatchJob } from '#core/run/batch-jobs.ts';
import { keys } from '#core/run/keys.ts';
import { findModelPrice, shippedPriceTable } from '#providers/prices.ts';
import { makeHandler as makeBatch, type BatchHandler } from '../../../functions/batch/handler.ts';
import { providerEnv, withKeysHint } from '../../../functions/shared/provider-env.ts';
import {
  startAnthropicBatchServer,
  startAnthropicServer,
  startOpenAiBatchServer,
  startOpenAiServer,
  type FakeServer,
  type OpenAiBatchServerOptions,
} from '../../fakes/wire-servers/index.ts';
import { awsClientConfig, useFakeAwsCredentials } from '../../support/moto.ts';
import { apiEvent } from './api-events.ts';
import { reasons, untilSettled, verdicts } from './batch-settle.ts';
import { apiClient, drive, lambdaContext, startCloud, type Cloud } from './cloud-harness.ts';

const KEYS_PATH = '/polyeval/provider-keys';
const OPENAI_KEY = 'sk-from-ssm';
const ANTHROPIC_KEY = 'sk-ant-from-ssm';
/** The functions' environment: the deployment lets both keys go to the loopback fakes (-c providerKeyHosts). */
const DEPLOYED = { ...process.env, PROVIDER_KEY_HOSTS: 'OPENAI_API_KEY=127.0.0.1,ANTHROPIC_API_KEY=127.0.0.1' };
/** Shipped prices, batch half of on demand: gpt-4o-mini $0.15/$0.60 → $0.075/$0.30, claude-haiku-4-5 $1/$5 → $0.50/$2.50. */
const OPENAI_MODEL = 'gpt-4o-mini';
const ANTHROPIC_MODEL = 'claude-haiku-4-5';
/**
 * An openai: server other than api.openai.com is priced only by the user (layers/providers/prices.ts
 * `resolveModelPrice`): the fakes' loopback URLs get gpt-4o-mini's shipped prices as `remote run --prices`.
 */
const OPENAI_PRICES = {
  models: { [OPENAI_MODEL]: { input_per_mtok: 0.15, output_per_mtok: 0.6, batch_input_per_mtok: 0.075, batch_output_per_mtok: 0.3 } },
};
/** The same model behind every fake: a digit chosen by the prompt's text. */
const answer = (prompt: string): string => String(1 + (prompt.length % 5));

let cloud: Cloud;
let ssm: SSMClient;
let onDemand: { openai: FakeServer & { url: string }; anthropic: FakeServer };
let keysEnv: () => Promise<NodeJS.ProcessEnv>;
const closers: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  useFakeAwsCredentials();
  // Only SSM holds the keys: a provider reading the process's environment would be refused by the fakes.
  delete process.env.OPENAI_API_KEY;
  delete process.env.ANTHROPIC_API_KEY;
  onDemand = {
    openai: await startOpenAiServer({ answer, apiKey: OPENAI_KEY }),
    anthropic: await startAnthropicServer({ answer, apiKey: ANTHROPIC_KEY }),
  };
  cloud = await startCloud({
    chunkSize: 20,
    providerEnv: { PROVIDER_KEY_HOSTS: DEPLOYED.PROVIDER_KEY_HOSTS },
    // The deployed generate's provider, with the keys from SSM (functions/generate/deps.ts); anthropic: at its on-demand fake.
    provider: async (m) =>
      createCloudProvider(
        m.model.spec,
        { env: await keysEnv(), ...(m.model.spec.startsWith('anthropic:') ? { endpointUrl: onDemand.anthropic.url } : {}) },
        DEPLOYED,
      ),
  });
  ssm = new SSMClient(awsClientConfig(cloud.moto.endpoint));
  for (const [name, value] of [
    ['OPENAI_API_KEY', OPENAI_KEY],
    ['ANTHROPIC_API_KEY', ANTHROPIC_KEY],
  ])
    await ssm.send(new PutParameterCommand({ Name: `${KEYS_PATH}/${name}`, Value: value, Type: 'SecureString' }));
  keysEnv = providerEnv({ env: { ...process.env, PROVIDER_KEYS_PATH: KEYS_PATH }, ssm: () => Promise.resolve(ssm) });
}, 120_000);
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c.close()));
});
afterAll(async () => {
  await Promise.all([onDemand?.openai.close(), onDemand?.anthropic.close()]);
  ssm?.destroy();
  await cloud?.stop();
});

const { call, startRun } = apiClient(() => cloud);

/** The deployed batch stage (functions/batch/deps.ts's wiring) over the fakes: a fresh instance, as after a restart. */
function batchStage(
  anthropicUrl?: string,
  keys: { env: () => Promise<NodeJS.ProcessEnv>; hint?: NodeJS.ProcessEnv } = { env: keysEnv },
): () => ReturnType<BatchHandler> {
  const { store, ledger, parts } = cloud;
  const clock = (): Date => new Date();
  const send = <T>(url: string): SqsWorkQueue<T> => new SqsWorkQueue<T>({ client: cloud.sqs, queueUrl: url });
  const handler = makeBatch({
    store,
    ledger,
    parts,
    clock,
    contexts: new RunContextCache({ store, ledger, clock, provider: (m) => createCloudProvider(m.model.spec, {}, DEPLOYED), costOf: costOfManifest }),
    client: async (manifest) =>
      createCloudBatchClient(manifest.model.spec, {
        store,
        providerOptions: { env: await keys.env(), keyHosts: cloudKeyHosts(DEPLOYED), retryBaseMs: 1, ...(anthropicUrl ? { endpointUrl: anthropicUrl } : {}) },
      }).catch((error: unknown) => {
        // functions/batch/deps.ts names the SSM parameter a missing key belongs in.
        throw keys.hint ? withKeysHint(error, keys.hint) : error;
      }),
    aggregateQueue: send<AggregateMessage>(cloud.queues.aggregate.url),
    executeQueues: { python: send<GeneratedMessage>(cloud.queues.python.url) },
    fargateQueues: {},
  });
  return () => handler(undefined, lambdaContext('batch'));
}

async function openAiBatches(options: OpenAiBatchServerOptions = {}) {
  const server = await startOpenAiBatchServer(Object.assign(options, { answer, apiKey: OPENAI_KEY }));
  closers.push(server);
  return server;
}

/** The run's cost at the model's batch price over the tokens its records hold. */
async function atBatchPrice(runId: string, model: string): Promise<number> {
  const price = findModelPrice(shippedPriceTable(), model);
  let usd = 0;
  for (const key of await cloud.store.list(keys.itemsPrefix(runId))) {
    const record = (JSON.parse((await cloud.store.getText(key)) ?? '{}') as { record: { prompt_tokens?: number; completion_tokens?: number } }).record;
    usd += ((record.prompt_tokens ?? 0) * (price?.batch_input_per_mtok ?? NaN) + (record.completion_tokens ?? 0) * (price?.batch_output_per_mtok ?? NaN)) / 1e6;
  }
  return usd;
}

describe('remote run --batch with openai: and anthropic: models', () => {
  it.each([
    { provider: 'openai', model: OPENAI_MODEL },
    { provider: 'anthropic', model: ANTHROPIC_MODEL },
  ])(
    'gets the verdicts of the same answers on demand from $provider batches, at the batch price, with the key from SSM',
    async ({ provider, model }) => {
      const openaiBatches = provider === 'openai' ? await openAiBatches() : undefined;
      const anthropicBatches = provider === 'anthropic' ? await startAnthropicBatchServer({ answer, apiKey: ANTHROPIC_KEY }) : undefined;
      if (anthropicBatches) closers.push(anthropicBatches);
      const spec = (url: string): string => (provider === 'openai' ? `openai:${url}#${model}` : `anthropic:${model}`);
      const prices = provider === 'openai' ? { prices: OPENAI_PRICES } : {};
      const batchRun = await startRun({ benchmark: 'sample/abricot', model: spec(openaiBatches?.url ?? ''), batch: true, ...prices });
      const direct = await startRun({ benchmark: 'sample/abricot', model: spec(onDemand.openai.url), likertMode: 'digit-parse', ...prices });
      await drive(cloud);
      expect(await cloud.store.list(`runs/${batchRun}/batches/`)).toHaveLength(3);
      const lines = await untilSettled(cloud, batchRun, batchStage(anthropicBatches?.url));
      expect(lines.some((l) => /3 batch jobs open; batch job \S+: (in_progress|validating)/.test(l))).toBe(true);
      if (openaiBatches)
        expect(openaiBatches.batches().map((b) => [b.requests, b.status])).toEqual([
          [20, 'completed'],
          [20, 'completed'],
          [12, 'completed'],
        ]);
      if (anthropicBatches)
        expect(anthropicBatches.batches().map((b) => [b.requests, b.status])).toEqual([
          [20, 'ended'],
          [20, 'ended'],
          [12, 'ended'],
        ]);

      const batched = await cloud.ledger.getRun(batchRun);
      expect(batched).toMatchObject({ status: 'completed', items: 52, recorded: 52 });
      const live = await cloud.ledger.getRun(direct);
      expect(live, `${live?.reason} ${(await reasons(cloud, direct)).slice(0, 2).join(' | ')}`).toMatchObject({ status: 'completed', items: 52, recorded: 52 });
      expect(live?.verdicts.SE ?? 0, (await reasons(cloud, direct)).slice(0, 2).join(' | ')).toBe(0);
      expect(batched?.verdicts.SE ?? 0).toBe(0);
      expect(await verdicts(cloud, batchRun)).toEqual(await verdicts(cloud, direct));
      const expected = await atBatchPrice(batchRun, model);
      expect(expected).toBeGreaterThan(0);
      expect(batched?.costUsd).toBeCloseTo(expected, 10);
      expect(JSON.parse((await cloud.store.getText(keys.manifest(batchRun))) ?? '{}')).toMatchObject({ generation: 'batch' });
    },
    300_000,
  );

  it('records the requests OpenAI rejected and those an expired batch never ran SE with OpenAI’s reason', async () => {
    const server = await openAiBatches({
      reject: (id) => (id === 'r3' ? { status: 400, message: "Invalid 'max_tokens': too large for this model" } : undefined),
      expireAfter: 15,
    });
    const runId = await startRun({ benchmark: 'sample/abricot', model: `openai:${server.url}#${OPENAI_MODEL}`, prices: OPENAI_PRICES, batch: true });
    await drive(cloud);
    await untilSettled(cloud, runId, batchStage());
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'completed', items: 52, recorded: 52 });
    const why = await reasons(cloud, runId);
    // r3 of each of the three batches is rejected; the two batches of 20 expire after 15 requests: 5 never run in each.
    expect(why.filter((r) => r.includes('too large for this model'))).toHaveLength(3);
    expect(why.filter((r) => r.includes('batch_expired'))).toHaveLength(10);
    expect(run?.verdicts.SE).toBe(13);
    expect(run?.costUsd).toBeCloseTo(await atBatchPrice(runId, OPENAI_MODEL), 10);
  }, 300_000);

  it('counts a job’s worst case against --max-cost before creating it: over the cap, the run stops with no batch created', async () => {
    const server = await openAiBatches();
    const runId = await startRun({
      benchmark: 'sample/abricot',
      model: `openai:${server.url}#${OPENAI_MODEL}`,
      prices: OPENAI_PRICES,
      batch: true,
      maxCostUsd: 0.0005,
    });
    await drive(cloud);
    await batchStage()();
    const run = await cloud.ledger.getRun(runId);
    // A job of 20 records, each its prompt and max_tokens at the batch price: over $0.0005 in all.
    expect(run?.status).toBe('stopped');
    expect(run?.reason).toMatch(/cost cap: \$0\.000000 spent or reserved, the next call may cost up to \$0\.000[5-9]\d+, cap \$0\.0005/);
    expect(server.batches()).toEqual([]);
  }, 120_000);

  it('stops the batch it created when --max-cost stops the run at the next job, and books what it billed', async () => {
    const server = await openAiBatches({ progressPolls: 1_000 });
    // Room for one job's worst case (about $0.00079 for 20 records), not two.
    const runId = await startRun({
      benchmark: 'sample/abricot',
      model: `openai:${server.url}#${OPENAI_MODEL}`,
      prices: OPENAI_PRICES,
      batch: true,
      maxCostUsd: 0.001,
    });
    await drive(cloud);
    const stage = batchStage();
    await stage();
    expect(server.batches().map((b) => b.status)).toEqual(['in_progress']);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'stopped' });
    // The next passes stop the job the stopped run left at OpenAI, then leave the run alone.
    await stage();
    await stage();
    expect(server.batches().map((b) => b.status)).toEqual(['cancelled']);
    expect((await stage()).runs.filter((r) => r.runId === runId)).toEqual([]);
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'stopped' });
    expect(run?.costUsd ?? NaN).toBeLessThanOrEqual(0.001);
  }, 300_000);

  /**
   * An OpenAI batch run whose three batches run at the provider while its first job document
   * lost the batch's id, as when POST /batches went through and its answer never came back (a
   * timeout), or the stage was killed before storing it.
   */
  async function runWithLostCreateAnswer(): Promise<{ server: Awaited<ReturnType<typeof openAiBatches>>; runId: string; key: string }> {
    const server = await openAiBatches({ progressPolls: 1_000 });
    const runId = await startRun({ benchmark: 'sample/abricot', model: `openai:${server.url}#${OPENAI_MODEL}`, prices: OPENAI_PRICES, batch: true });
    await drive(cloud);
    const first = batchStage();
    for (let i = 0; i < 2; i++) await first();
    expect(server.batches().map((b) => b.status)).toEqual(['in_progress', 'in_progress', 'in_progress']);
    const key = `runs/${runId}/batches/0000.json`;
    const doc = parseBatchJob((await cloud.store.getText(key)) ?? '', key);
    await cloud.store.put(key, JSON.stringify({ ...doc, job_id: null, state: 'submitting', status: undefined }), 'application/json');
    return { server, runId, key };
  }

  it('finds its OpenAI batch again after a restart mid-batch, and cancel stops the batches', async () => {
    const { server, runId, key } = await runWithLostCreateAnswer();
    // A new instance of the stage (a fresh container) finds the batch by its metadata and submits none.
    await batchStage()();
    expect(server.batches()).toHaveLength(3);
    expect(parseBatchJob((await cloud.store.getText(key)) ?? '', key).job_id).toBe(server.batches()[0]?.id);

    expect((await call(apiEvent('POST', `/runs/${runId}/cancel`))).status).toBe(200);
    const stage = batchStage();
    await stage();
    await stage();
    expect(server.batches().map((b) => b.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'cancelled', recorded: 0 });
    expect((await stage()).runs.filter((r) => r.runId === runId)).toEqual([]);
  }, 300_000);

  it('cancels a batch whose create answer was lost when the run is cancelled before the stage found it again', async () => {
    const { server, runId, key } = await runWithLostCreateAnswer();
    // Cancelled before any tick looked for it: the stop finds the batch by its metadata and cancels it
    // (it had released the reservation and left the batch running, and billing, at the provider).
    expect((await call(apiEvent('POST', `/runs/${runId}/cancel`))).status).toBe(200);
    const stage = batchStage();
    await stage();
    await stage();
    expect(server.batches().map((b) => b.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    expect(parseBatchJob((await cloud.store.getText(key)) ?? '', key).job_id).toBe(server.batches()[0]?.id);
  }, 300_000);

  it('fails a batch run whose key is not in SSM, naming the parameter to put it in', async () => {
    const env = { ...process.env, PROVIDER_KEYS_PATH: '/polyeval/other-keys' };
    const noKeys = providerEnv({ env, ssm: () => Promise.resolve(ssm) });
    const runId = await startRun({ benchmark: 'sample/abricot', model: `anthropic:${ANTHROPIC_MODEL}`, batch: true });
    await drive(cloud);
    await batchStage(undefined, { env: noKeys, hint: env })();
    const run = await cloud.ledger.getRun(runId);
    expect(run?.status).toBe('failed');
    expect(run?.reason).toContain('ANTHROPIC_API_KEY is not set');
    expect(run?.reason).toContain('/polyeval/other-keys/ANTHROPIC_API_KEY');
  }, 120_000);
});
