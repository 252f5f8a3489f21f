// `polyeval remote resume` on moto_server with the real handlers: a cloud run that ended with
// SE items (the provider gave up on them) and an item lost from its queue runs exactly those
// again — the same items `polyeval resume` would run locally (core/run/lifecycle.ts) — and is
// aggregated again, its summary and ledger counting their new verdicts.
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsWorkQueue } from '#aws/index.ts';
import type { Provider } from '#core/models/provider.ts';
import type { RunSummaryDocument } from '#core/run/aggregate.ts';
import { keys } from '#core/run/keys.ts';
import type { AggregateMessage } from '#app/cloud/messages.ts';
import { createCloudProvider } from '#app/cloud/provider.ts';
import { watchRuns } from '#app/cloud/watchdog.ts';
import { apiEvent } from './api-events.ts';
import { apiClient, drive, queueDepth, startCloud, type Cloud, type StageName } from './cloud-harness.ts';

let cloud: Cloud;
/** Task ids the provider gives up on (an SE record: the harness's failure, not the model's). */
const failOn = new Set<string>();
/** Task ids of every model call, in order. */
const calls: string[] = [];

beforeAll(async () => {
  const env = { ...process.env };
  const provider = async (manifest: { model: { spec: string } }): Promise<Provider> => {
    const inner = await createCloudProvider(manifest.model.spec, {}, env);
    return {
      ...inner,
      generate: async (req) => {
        calls.push(req.taskId);
        if (failOn.has(req.taskId)) throw new Error(`the provider gave up on ${req.taskId}`);
        return inner.generate(req);
      },
    };
  };
  cloud = await startCloud({ provider });
}, 60_000);

afterAll(async () => {
  await cloud?.stop();
});

const { call, startRun } = apiClient(() => cloud);

function summaryOf(runId: string): Promise<RunSummaryDocument> {
  return cloud.store.getText(keys.summary(runId)).then((text) => JSON.parse(text ?? '{}') as RunSummaryDocument);
}

describe('remote resume', () => {
  it('runs a completed run’s SE items again, only those, and counts their new verdicts', async () => {
    failOn.add('rocode-sample/001-suma').add('rocode-sample/003-medie');
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 4 });
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 4, recorded: 4, verdicts: { SE: 2 } });
    expect((await summaryOf(runId)).verdicts).toMatchObject({ SE: 2 });

    failOn.clear();
    calls.length = 0;
    const resumed = await call(apiEvent('POST', `/runs/${runId}/resume`));
    expect(resumed).toMatchObject({ status: 202, body: { run_id: runId, status: 'completed' } });
    await drive(cloud);

    expect(calls.sort()).toEqual(['rocode-sample/001-suma', 'rocode-sample/003-medie']);
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'completed', items: 4, recorded: 4 });
    expect(run?.verdicts.SE ?? 0).toBe(0);
    const summary = await summaryOf(runId);
    expect(summary).toMatchObject({ status: 'completed', items: 4 });
    expect(summary.verdicts.SE ?? 0).toBe(0);
    expect(Object.values(summary.verdicts).reduce((a, b) => a + (b ?? 0), 0)).toBe(4);
  }, 180_000);

  it('runs an item lost from its queue again after the watchdog closed the run', async () => {
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 3 });
    await driveStage('plan');
    const out = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: cloud.queues.generate.url, MaxNumberOfMessages: 1 }));
    const lost = JSON.parse(out.Messages?.[0]?.Body ?? '{}') as { taskId: string };
    await cloud.sqs.send(new DeleteMessageCommand({ QueueUrl: cloud.queues.generate.url, ReceiptHandle: out.Messages?.[0]?.ReceiptHandle }));
    await drive(cloud);
    await watchdog();
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed_with_missing', recorded: 2 });

    calls.length = 0;
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(202);
    await drive(cloud);
    expect(calls).toEqual([lost.taskId]);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 3, recorded: 3 });
    const summary = await summaryOf(runId);
    expect(summary).toMatchObject({ status: 'completed', items: 3 });
    expect(summary.missing).toBeUndefined();
  }, 180_000);

  it('answers 404 for an unknown run and 409 for one still going', async () => {
    expect((await call(apiEvent('POST', '/runs/no-such-run/resume'))).status).toBe(404);
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 1 });
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(409);
    await drive(cloud);
  }, 120_000);
});

async function driveStage(stage: StageName): Promise<void> {
  const { deliverSqsBatch } = await import('#aws/index.ts');
  const { FAKE_AWS } = await import('../../support/moto.ts');
  const { lambdaContext } = await import('./cloud-harness.ts');
  while (
    await deliverSqsBatch({
      client: cloud.sqs,
      queueUrl: cloud.queues[stage].url,
      region: FAKE_AWS.region,
      handler: (e) => cloud.handlers[stage](e, lambdaContext(stage)),
      batchSize: 5,
    })
  );
}

async function watchdog(): Promise<void> {
  let depth = 0;
  for (const name of ['plan', 'generate', 'python', 'aggregate'] as StageName[]) depth += await queueDepth(cloud.sqs, cloud.queues[name].url);
  expect(depth).toBe(0);
  await watchRuns({
    ledger: cloud.ledger,
    aggregateQueue: new SqsWorkQueue<AggregateMessage>({ client: cloud.sqs, queueUrl: cloud.queues.aggregate.url }),
    pipelineDepth: () => Promise.resolve(0),
    clock: () => new Date(Date.now() + 31 * 60_000),
  });
}
