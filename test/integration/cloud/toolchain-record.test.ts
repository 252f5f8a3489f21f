// A cloud run records the toolchains its judges used (DESIGN §7; layers/app/cloud/toolchain-record.ts):
// the deployed execute handler (functions/execute/handler.ts over createExecuteDeps, as the Lambda
// and the Fargate consumer build it) on moto_server writes runs/<run>/toolchains/<language>.json
// with a create-only PUT once per run, language and container, whatever number of deliveries; the
// aggregate's report and the API's run view show it; a bad record never fails the run.
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3BlobStore } from '#aws/index.ts';
import { toolchainOptionsByLanguage } from '#core/languages/index.ts';
import type { ToolchainInfo } from '#core/ports.ts';
import { keys, readManifest, type Manifest } from '#core/run/index.ts';
import { escapeHtml } from '#core/html/index.ts';
import { RecordedToolchainSchema, toolchainKeys } from '#app/cloud/toolchain-record.ts';
import { ContainerSandbox } from '../../../functions/execute/container-sandbox.ts';
import { createExecuteDeps } from '../../../functions/execute/deps.ts';
import { makeHandler as makeExecute } from '../../../functions/execute/handler.ts';
import { awsClientConfig } from '../../support/moto.ts';
import { apiEvent } from './api-events.ts';
import { BUCKET, TABLE, apiClient, deliverOnce, drainStage, drive, startCloud, type Cloud } from './cloud-harness.ts';

let cloud: Cloud;
const { call, startRun } = apiClient(() => cloud);

beforeAll(async () => {
  cloud = await startCloud();
}, 120_000);

afterAll(async () => {
  await cloud?.stop();
});

/** Every PutObject of a toolchain record the S3 client sends: its key, its condition and how S3 answered. */
interface RecordPut {
  key: string;
  ifNoneMatch: string | undefined;
  answer: string;
}

/** An S3 client that notes each toolchain-record PUT (the adapter's request, as moto answers it). */
function countingS3(puts: RecordPut[]): S3Client {
  const client = new S3Client(awsClientConfig(cloud.moto.endpoint));
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: string; IfNoneMatch?: string };
      const watched = context.commandName === 'PutObjectCommand' && (input.Key ?? '').includes('/toolchains/');
      try {
        const out = await next(args);
        if (watched) puts.push({ key: input.Key ?? '', ifNoneMatch: input.IfNoneMatch, answer: 'created' });
        return out;
      } catch (error) {
        if (watched) puts.push({ key: input.Key ?? '', ifNoneMatch: input.IfNoneMatch, answer: (error as Error).name });
        throw error;
      }
    },
    { step: 'initialize', name: 'noteToolchainPuts' },
  );
  return client;
}

/** One execute container as deployed: its own deps (sandbox, recorder), the cloud's queues and tables. */
function executeContainer(puts: RecordPut[]) {
  const s3 = countingS3(puts);
  const store = new S3BlobStore({ client: s3, bucket: BUCKET });
  const deps = createExecuteDeps(
    { AGGREGATE_QUEUE_URL: cloud.queues.aggregate.url, POLYEVAL_EXECUTOR_IMAGE: 'python', POWERTOOLS_LOG_LEVEL: 'SILENT' },
    { s3, sqs: cloud.sqs, dynamo: cloud.dynamo, store, ledger: cloud.ledger, parts: cloud.parts, tableName: TABLE },
  );
  return { handler: makeExecute(deps), destroy: () => s3.destroy() };
}

/** Takes every message off the python queue (their bodies), so the test sends them to the container it chooses. */
async function takeExecuteMessages(): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const out = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: cloud.queues.python.url, MaxNumberOfMessages: 10, VisibilityTimeout: 30 }));
    const messages = out.Messages ?? [];
    if (messages.length === 0) return bodies;
    for (const m of messages) {
      bodies.push(m.Body ?? '');
      await cloud.sqs.send(new DeleteMessageCommand({ QueueUrl: cloud.queues.python.url, ReceiptHandle: m.ReceiptHandle }));
    }
  }
}

/** Sends `bodies` to the python queue and delivers them to `handler` one message an invocation. */
async function deliverEach(bodies: readonly string[], handler: Cloud['handlers']['python']): Promise<number> {
  for (const body of bodies) await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.python.url, MessageBody: body }));
  const own = cloud.handlers.python;
  cloud.handlers.python = handler;
  let invocations = 0;
  try {
    while (await deliverOnce(cloud, 'python', 1)) invocations += 1;
  } finally {
    cloud.handlers.python = own;
  }
  return invocations;
}

/** The report's manifest row of one toolchain, as a local run's report writes it (report-manifest.ts). */
function reportRow(t: ToolchainInfo): string {
  return `<tr><th>toolchain ${t.language}</th><td>${escapeHtml(`${t.compiler ?? ''} ${t.version ?? ''} ${(t.flags ?? []).join(' ')}`.trim())}</td></tr>`;
}

describe('toolchains of a cloud run', () => {
  it('are written once per container across deliveries, equal to the sandbox toolchains, and shown by the report and the run view', async () => {
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 3 });
    await drainStage(cloud, 'plan');
    await drainStage(cloud, 'generate');
    const bodies = await takeExecuteMessages();
    expect(bodies).toHaveLength(3);
    const [first, second, third] = bodies as [string, string, string];

    const puts: RecordPut[] = [];
    const a = executeContainer(puts);
    const b = executeContainer(puts);
    try {
      // Container A: two items and a duplicate delivery of the first (at-least-once), three invocations.
      expect(await deliverEach([first, second, first], a.handler)).toBe(3);
      expect(puts).toEqual([{ key: toolchainKeys.language(runId, 'python'), ifNoneMatch: '*', answer: 'created' }]);
      const written = await cloud.store.getText(toolchainKeys.language(runId, 'python'));
      // Container B (another warm environment): its one conditional PUT finds the record and leaves it.
      expect(await deliverEach([third], b.handler)).toBe(1);
      expect(puts.map((p) => p.answer)).toEqual(['created', 'PreconditionFailed']);
      expect(await cloud.store.getText(toolchainKeys.language(runId, 'python'))).toBe(written);

      // The record is what the container's own sandbox reports for python with the run's options.
      const manifest = (await readManifest(cloud.store, runId)) as Manifest;
      const sandbox = await new ContainerSandbox({ store: cloud.store, env: {} }).get();
      const [expected] = await sandbox.toolchains(toolchainOptionsByLanguage(manifest), new Set(['python']));
      const record = RecordedToolchainSchema.parse(JSON.parse(written ?? ''));
      expect(record).toMatchObject({ run_id: runId, language: 'python', image: 'python' });
      expect(record.toolchain).toEqual(expected);
      expect(expected).toMatchObject({ language: 'python', available: true, version: expect.stringMatching(/^3\.\d+/) });

      // The run completes; its report lists the toolchain as a local run's does; plan's manifest is unchanged.
      await drive(cloud);
      expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', recorded: 3 });
      const report = (await cloud.store.getText(keys.report(runId))) ?? '';
      expect(report).toContain(reportRow(expected as ToolchainInfo));
      expect((await readManifest(cloud.store, runId))?.toolchains).toEqual([]);

      // GET /runs/{id} (remote status) shows it in the manifest, from the kept copy once runs/ expired.
      const view = await call(apiEvent('GET', `/runs/${runId}`));
      expect((view.body.manifest as Manifest).toolchains).toEqual([expected]);
      expect(await cloud.store.exists(toolchainKeys.kept(runId))).toBe(true);
      await cloud.store.delete(toolchainKeys.language(runId, 'python'));
      const later = await call(apiEvent('GET', `/runs/${runId}`));
      expect((later.body.manifest as Manifest).toolchains).toEqual([expected]);
    } finally {
      a.destroy();
      b.destroy();
    }
  }, 300_000);

  it('never fails a run over a bad record: the report and the run view say it was not recorded', async () => {
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 1 });
    await drainStage(cloud, 'plan');
    // A damaged record in place before any judge writes: the create-only PUT leaves it, readers skip it.
    await cloud.store.put(toolchainKeys.language(runId, 'python'), '{"not": "a toolchain record"');
    await drive(cloud);

    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', recorded: 1, verdicts: { OK: 1 } });
    const report = (await cloud.store.getText(keys.report(runId))) ?? '';
    expect(report).toContain('<tr><th>toolchain python</th><td>not recorded</td></tr>');
    const view = await call(apiEvent('GET', `/runs/${runId}`));
    expect(view.status).toBe(200);
    expect((view.body.manifest as Manifest).toolchains).toEqual([]);
    expect(await cloud.store.exists(toolchainKeys.kept(runId))).toBe(false);
  }, 300_000);
});
