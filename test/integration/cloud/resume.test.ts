// `polyeval remote resume` on moto_server with the real handlers: a cloud run that ended with
// SE items (the provider gave up on them) and an item lost from its queue runs exactly those
// again — the same items `polyeval resume` would run locally (core/run/lifecycle.ts) — and is
// aggregated again, its summary and ledger counting their new verdicts.
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqsWorkQueue } from '#aws/index.ts';
import { peekMessages } from '#aws/sqs-dead-letters.ts';
import { findBenchmark } from '#core/benchmarks/registry.ts';
import { referenceProvider } from '#core/models/reference.ts';
import type { RunContext } from '#core/run/engine.ts';
import { readManifest } from '#core/run/manifest-store.ts';
import { runPipeline } from '#core/run/pipeline.ts';
import type { WorkItem } from '#core/run/plan.ts';
import type { QueueMessage, WorkQueue } from '#core/ports.ts';
import { readPartManifests } from '#app/cloud/record-parts.ts';
import { FileRunLedger, FsBlobStore } from '#local/index.ts';
import type { Provider } from '#core/models/provider.ts';
import type { RunSummaryDocument } from '#core/report/aggregate.ts';
import { keys } from '#core/run/keys.ts';
import { decodeRecords } from '#core/run/parquet.ts';
import { versioned, type AggregateMessage, type PlanMessage } from '#app/cloud/messages.ts';
import { createCloudProvider } from '#app/cloud/provider.ts';
import { requestResume } from '#app/cloud/resume.ts';
import { writeManifest } from '#core/run/manifest-store.ts';
import { apiEvent } from './api-events.ts';
import { apiClient, drainStage, drive, pipelineDepth, queueDepth, startCloud, watchdogAt, type Cloud, type StageName } from './cloud-harness.ts';

let cloud: Cloud;
/** Task ids the provider gives up on (an SE record: the harness's failure, not the model's). */
const failOn = new Set<string>();
/** Task ids of every model call, in order. */
const calls: string[] = [];
/** Task ids whose record is stored but whose count is lost (the stage died between the two writes). */
const uncounted = new Set<string>();

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
  const recordItem = cloud.ledger.recordItem.bind(cloud.ledger);
  cloud.ledger.recordItem = async (runId, id, verdict) => ([...uncounted].some((task) => id === `${runId}/${task}/0`) ? true : recordItem(runId, id, verdict));
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

  it('counts the re-run SE items even when another delivery aggregated the run while they ran', async () => {
    failOn.add('rocode-sample/002-cifre');
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 3 });
    await drive(cloud);
    expect((await summaryOf(runId)).verdicts).toMatchObject({ SE: 1 });
    failOn.clear();
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(202);
    await driveStage('plan');
    // A late delivery of one of the run's original messages (a redriven dead letter, a failed
    // run's queued work) records, finds every item counted and asks for the aggregate first.
    await new SqsWorkQueue<AggregateMessage>({ client: cloud.sqs, queueUrl: cloud.queues.aggregate.url }).send([
      { id: `${runId}/aggregate`, body: versioned({ runId }) },
    ]);
    await driveStage('aggregate');
    expect((await summaryOf(runId)).verdicts).toMatchObject({ SE: 1 });
    await drive(cloud);
    const summary = await summaryOf(runId);
    expect(summary).toMatchObject({ status: 'completed', items: 3 });
    expect(summary.verdicts.SE ?? 0).toBe(0);
    const manifest = await readManifest(cloud.store, runId);
    const part = await cloud.store.get(keys.recordsPart(manifest?.benchmark.id ?? '', runId, 0));
    const rows = await decodeRecords(part ?? new Uint8Array(), { run_id: runId, benchmark: manifest?.benchmark.id ?? '' });
    expect(rows.map((r) => r.verdict).filter((v) => v === 'SE')).toEqual([]);
    expect(rows).toHaveLength(3);
  }, 180_000);

  it('keeps a re-run record when the watchdog closes a resume one of whose items was lost', async () => {
    failOn.add('rocode-sample/001-suma').add('rocode-sample/002-cifre');
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 3 });
    await drive(cloud);
    expect((await summaryOf(runId)).verdicts).toMatchObject({ SE: 2 });
    failOn.clear();
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(202);
    await driveStage('plan');
    await loseMessageOf('rocode-sample/002-cifre');
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'running' });
    await watchdog();
    await drive(cloud);
    // 001 ran again and its new record counts; 002's message was lost, its SE record stays.
    expect((await summaryOf(runId)).verdicts.SE).toBe(1);
    const manifest = await readManifest(cloud.store, runId);
    const part = await cloud.store.get(keys.recordsPart(manifest?.benchmark.id ?? '', runId, 0));
    const rows = await decodeRecords(part ?? new Uint8Array(), { run_id: runId, benchmark: manifest?.benchmark.id ?? '' });
    expect(rows.filter((r) => r.verdict === 'SE').map((r) => r.task_id)).toEqual(['rocode-sample/002-cifre']);
    expect(rows).toHaveLength(3);
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

  it('answers 404 for an unknown run and 409 for one still going or cancelled', async () => {
    expect((await call(apiEvent('POST', '/runs/no-such-run/resume'))).status).toBe(404);
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 1 });
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(409);
    await drive(cloud);
    const cancelled = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 1 });
    expect((await call(apiEvent('POST', `/runs/${cancelled}/cancel`))).status).toBe(200);
    await drive(cloud);
    expect((await call(apiEvent('POST', `/runs/${cancelled}/resume`))).status).toBe(409);
    expect((await cloud.ledger.getRun(cancelled))?.status).toBe('cancelled');
  }, 120_000);

  it('takes one resume at a time: of two requests racing for an ended run one is accepted, the other refused (409), and the items run once', async () => {
    failOn.add('rocode-sample/002-cifre');
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 2 });
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', verdicts: { SE: 1 } });

    failOn.clear();
    calls.length = 0;
    const answers = await Promise.all([call(apiEvent('POST', `/runs/${runId}/resume`)), call(apiEvent('POST', `/runs/${runId}/resume`))]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    expect(answers.find((a) => a.status === 409)?.body).toMatchObject({ message: expect.stringMatching(/is running/) as unknown });
    // Still pending: a third is refused too, before plan has even read the first.
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(409);
    await drive(cloud);

    expect(calls).toEqual(['rocode-sample/002-cifre']);
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'completed', items: 2, recorded: 2 });
    expect(run?.verdicts.SE ?? 0).toBe(0);
    expect(await cloud.store.list(`runs/${runId}/resumes/`)).toHaveLength(1);
  }, 180_000);

  it('gives a claimed run back as it ended, saying why, when plan refuses the resume — not left `running` — and takes the next request', async () => {
    failOn.add('rocode-sample/002-cifre');
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 2 });
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', verdicts: { SE: 1 } });
    failOn.clear();
    // A run planned before its base URL was refused (key-hosts.ts: OpenAI's own host over plain http).
    const manifest = await readManifest(cloud.store, runId);
    if (manifest === undefined) throw new Error('no manifest');
    await writeManifest(cloud.store, { ...manifest, model: { ...manifest.model, spec: 'openai:http://api.openai.com/v1#gpt-4o-mini' } });

    calls.length = 0;
    for (let ask = 0; ask < 2; ask++) {
      expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(202);
      await driveStage('plan');
      const given = await cloud.ledger.getRun(runId);
      expect(given?.status).toBe('completed');
      expect(given?.reason).toMatch(/^resume \S+ refused: [^;]*OPENAI_API_KEY is not sent to api\.openai\.com over plain http[^;]*$/);
    }
    expect(calls).toEqual([]);
    expect(await cloud.store.list(`runs/${runId}/resumes/`)).toHaveLength(0);
    expect(await queueDepth(cloud.sqs, cloud.queues.plan.url)).toBe(0);
  }, 180_000);

  it('keeps a resume one at a time when its plan message is delivered again after its items ran: the run stays `running` until aggregated', async () => {
    failOn.add('rocode-sample/002-cifre');
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 2 });
    await drive(cloud);
    failOn.clear();
    const asked = await call(apiEvent('POST', `/runs/${runId}/resume`));
    expect(asked.status).toBe(202);
    await driveStage('plan');
    for (const stage of ['generate', 'python', 'generate', 'python'] as StageName[]) await driveStage(stage);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'running', recorded: 2 });
    // SQS delivers the same plan message again (at least once): nothing is left to send.
    await new SqsWorkQueue<PlanMessage>({ client: cloud.sqs, queueUrl: cloud.queues.plan.url }).send([
      { id: `${runId}/resume/again`, body: versioned({ runId, offset: 0, resume: String(asked.body.resume), resumedFrom: { status: 'completed' } }) },
    ]);
    await driveStage('plan');
    expect(await cloud.ledger.runStatus(runId)).toBe('running');
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(409);
    await drive(cloud);
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'completed', items: 2, recorded: 2 });
    expect(run?.verdicts.SE ?? 0).toBe(0);
  }, 180_000);

  it('lets the watchdog close a run claimed for a resume whose plan message was lost: it ends, and can be resumed again', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 1 });
    await drive(cloud);
    const lost = { send: (): Promise<void> => Promise.resolve() };
    await requestResume({ ledger: cloud.ledger, planQueue: lost, clock: () => new Date() }, runId);
    expect(await cloud.ledger.runStatus(runId)).toBe('running');
    await watchdog();
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 1, recorded: 1 });
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(202);
    await drive(cloud);
    expect(await cloud.ledger.runStatus(runId)).toBe('completed');
  }, 120_000);

  it('gives the run back as it ended when the plan message cannot be sent, so it can be resumed again', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: 'reference', limit: 1 });
    await drive(cloud);
    const ended = await cloud.ledger.getRun(runId);
    expect(ended?.status).toBe('completed');
    const down = { send: (): Promise<void> => Promise.reject(new Error('the plan queue is unavailable')) };
    await expect(requestResume({ ledger: cloud.ledger, planQueue: down, clock: () => new Date() }, runId)).rejects.toThrow(/plan queue is unavailable/);
    const after = await cloud.ledger.getRun(runId);
    expect(after?.status).toBe('completed');
    expect(after?.reason).toBe(ended?.reason);
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(202);
    await drive(cloud);
    expect((await cloud.ledger.getRun(runId))?.status).toBe('completed');
  }, 120_000);

  it('leaves a run with no SE or missing item as it was: no model call, no record, summary or records part rewritten', async () => {
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 3 });
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 3, recorded: 3 });
    const manifest = await readManifest(cloud.store, runId);
    const before = await storedTexts([keys.summary(runId), ...(await cloud.store.list(keys.itemsPrefix(runId)))]);
    const part = manifest ? keys.recordsPart(manifest.benchmark.id, runId, 0) : '';
    const partBefore = await cloud.store.get(part);
    const ended = await cloud.ledger.getRun(runId);
    expect(partBefore).toBeDefined();

    calls.length = 0;
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(202);
    // Claimed for the resume until plan has decided…
    expect(await cloud.ledger.runStatus(runId)).toBe('running');
    await drive(cloud);
    expect(calls).toEqual([]);
    // …then given back as it ended, reason included, and resumable again.
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 3, recorded: 3 });
    expect((await cloud.ledger.getRun(runId))?.reason).toBe(ended?.reason);
    expect(await storedTexts(Object.keys(before))).toEqual(before);
    expect(Buffer.from((await cloud.store.get(part)) ?? [])).toEqual(Buffer.from(partBefore ?? []));
  }, 120_000);
});

/** The stored text of each key, by key. */
async function storedTexts(list: readonly string[]): Promise<Record<string, string | undefined>> {
  return Object.fromEntries(await Promise.all(list.map(async (key) => [key, await cloud.store.getText(key)] as const)));
}

const driveStage = (stage: StageName) => drainStage(cloud, stage);

/** The watchdog 31 minutes on, once every stage queue is empty (no dead-letter bodies read). */
async function watchdog(): Promise<void> {
  expect(await pipelineDepth(cloud)).toBe(0);
  await watchdogAt(cloud, 31, { deadLetters: false });
}

/** A queue that keeps what is sent and delivers nothing: what a driver decided to run. */
class SentItems<T> implements WorkQueue<T> {
  readonly sent: T[] = [];
  send(messages: { id: string; body: T }[]): Promise<void> {
    this.sent.push(...messages.map((m) => m.body));
    return Promise.resolve();
  }
  consume(_handler: (message: QueueMessage<T>) => Promise<void>): Promise<void> {
    return Promise.resolve();
  }
  close(): void {}
}

type Decision = 'skip' | 'run' | 'rerun';

/** Each planned task's decision, from the items a driver sent (a re-run carries the verdict it replaces). */
function decisionsOf(sent: readonly WorkItem[], tasks: readonly string[]): Record<string, Decision> {
  return Object.fromEntries(
    tasks.map((task) => {
      const item = sent.find((i) => i.taskId === task);
      return [task, item === undefined ? 'skip' : item.previousVerdict === 'SE' ? 'rerun' : 'run'];
    }),
  );
}

describe('the same run events, fed to the local and the cloud driver', () => {
  // One row per event a run leaves behind, and the decision both drivers must take on resume.
  const table: { event: string; task: string; decision: Decision; countedAfter: boolean }[] = [
    { event: 'stored OK item, counted', task: 'rocode-sample/001-suma', decision: 'skip', countedAfter: true },
    { event: 'stored SE item (the provider gave up)', task: 'rocode-sample/002-cifre', decision: 'rerun', countedAfter: true },
    { event: 'missing item (its message lost)', task: 'rocode-sample/003-medie', decision: 'run', countedAfter: false },
    { event: 'stored OK item, not counted (died between the writes)', task: 'rocode-sample/004-divizori', decision: 'skip', countedAfter: true },
    { event: 'stored SE item, not counted', task: 'rocode-sample/005-secventa', decision: 'rerun', countedAfter: true },
  ];
  const tasks = table.map((row) => row.task);

  it('takes the same decisions and counts the same items', async () => {
    for (const row of table) {
      if (row.event.includes('SE')) failOn.add(row.task);
      if (row.event.includes('not counted')) uncounted.add(row.task);
    }
    const lost = table.find((row) => row.event.startsWith('missing'))?.task;
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 5 });
    await driveStage('plan');
    await loseMessageOf(lost ?? '');
    await drive(cloud);
    failOn.clear();
    uncounted.clear();
    await watchdog();
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed_with_missing', items: 5, recorded: 2 });

    // The local driver: the same events in a local home (the run's manifest, its item records, its counts).
    const dir = mkdtempSync(join(tmpdir(), 'lifecycle-'));
    const store = new FsBlobStore(join(dir, 'store'));
    const ledger = new FileRunLedger(join(dir, 'ledger'));
    const manifest = await readManifest(cloud.store, runId);
    if (manifest === undefined) throw new Error('no manifest');
    await store.put(keys.manifest(runId), (await cloud.store.getText(keys.manifest(runId))) ?? '', 'application/json');
    for (const key of await cloud.store.list(keys.itemsPrefix(runId))) await store.put(key, (await cloud.store.getText(key)) ?? '', 'application/json');
    await ledger.createRun({ runId, benchmark: 'rocode', model: 'reference', status: 'completed_with_missing', items: 5, createdAt: manifest.created_at });
    const cloudCounts = await cloud.ledger.getRun(runId);
    for (const id of await cloud.ledger.recordedItems(runId)) await ledger.recordItem(runId, id, id.includes('002') ? 'SE' : 'OK');
    expect((await ledger.getRun(runId))?.verdicts).toEqual(cloudCounts?.verdicts);
    const items: WorkItem[] = (await readPartManifests(cloud.store, runId)).flatMap((part) =>
      part.items.map((i) => ({ runId, taskId: i.taskId, sample: i.sample, language: 'python' })),
    );
    const benchmark = findBenchmark('rocode');
    if (benchmark === undefined) throw new Error('no rocode');
    const ctx: RunContext = {
      store,
      ledger,
      provider: referenceProvider(),
      clock: () => new Date(),
      manifest,
      benchmark,
      tasks: new Map(),
      pool: [],
      stop: {},
    };
    const generateQueue = new SentItems<WorkItem>();
    await runPipeline(ctx, items, { generateQueue, scoreQueue: new SentItems(), generateConcurrency: 1, scoreConcurrency: 1 });
    const local = decisionsOf(generateQueue.sent, tasks);

    // The cloud driver: `remote resume`, as far as the items the plan stage sends to generate.
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(202);
    await driveStage('plan');
    const cloudSent = await generateMessages();
    const remote = decisionsOf(cloudSent, tasks);

    expect(local).toEqual(Object.fromEntries(table.map((row) => [row.task, row.decision])));
    expect(remote).toEqual(local);
    const counted = table.filter((row) => row.countedAfter).map((row) => `${runId}/${row.task}/0`);
    expect([...(await ledger.recordedItems(runId))].sort()).toEqual(counted);
    expect([...(await cloud.ledger.recordedItems(runId))].sort()).toEqual(counted);

    // And the resumed cloud run ends counting every item.
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', items: 5, recorded: 5 });
    expect((await cloud.ledger.getRun(runId))?.verdicts.SE ?? 0).toBe(0);
  }, 240_000);
});

/** Takes the generate message of `task` off its queue (as a message deleted by hand), leaving the others. */
async function loseMessageOf(task: string): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const out = await cloud.sqs.send(new ReceiveMessageCommand({ QueueUrl: cloud.queues.generate.url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
    const found = out.Messages?.find((m) => (JSON.parse(m.Body ?? '{}') as { taskId?: string }).taskId === task);
    if (found) {
      await cloud.sqs.send(new DeleteMessageCommand({ QueueUrl: cloud.queues.generate.url, ReceiptHandle: found.ReceiptHandle }));
      return;
    }
  }
  throw new Error(`no generate message of ${task}`);
}

/** The work items on the generate queue, left in place. */
async function generateMessages(): Promise<WorkItem[]> {
  return (await peekMessages(cloud.sqs, [cloud.queues.generate.url])).map((body) => JSON.parse(body) as WorkItem);
}

// Issue 35 (reads per item): generate's first look asks the ledger's item row (stages.ts
// generateWork, RunLedger.countedVerdict), not the item's document in S3. It only saves work; the
// look before recording (the judge's) keeps each record once and counts a stored, uncounted one.
describe('generate’s first look: the ledger’s item row', () => {
  /** Plans a one-item run and keeps its generate message's body, to deliver it again later. */
  async function plannedRun(task: string): Promise<{ runId: string; body: string }> {
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 1 });
    await driveStage('plan');
    const [body] = await peekMessages(cloud.sqs, [cloud.queues.generate.url]);
    expect((JSON.parse(body ?? '{}') as WorkItem).taskId).toBe(task);
    return { runId, body: body ?? '' };
  }

  const itemReads = (getText: { mock: { calls: unknown[][] } }, runId: string) =>
    getText.mock.calls.filter(([key]) => String(key).startsWith(keys.itemsPrefix(runId))).length;

  it('skips a counted item’s generate message delivered again: no model call, no read of its document, nothing recorded again', async () => {
    const { runId, body } = await plannedRun('rocode-sample/001-suma');
    await drive(cloud);
    const before = await cloud.ledger.getRun(runId);
    expect(before).toMatchObject({ status: 'completed', recorded: 1 });
    const [key] = await cloud.store.list(keys.itemsPrefix(runId));
    const document = await cloud.store.getText(key ?? '');

    calls.length = 0;
    const getText = vi.spyOn(cloud.store, 'getText');
    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.generate.url, MessageBody: body }));
    await driveStage('generate');
    // The item row says counted: skipped before the model call, its document in S3 never read.
    expect(calls).toEqual([]);
    expect(itemReads(getText, runId)).toBe(0);
    getText.mockRestore();
    expect(await queueDepth(cloud.sqs, cloud.queues.python.url)).toBe(0);
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', recorded: 1, verdicts: before?.verdicts });
    expect(await cloud.store.getText(key ?? '')).toBe(document);
  }, 180_000);

  it('counts, once, an item stored but not counted (a delivery died between the writes) when its generate message comes again', async () => {
    const task = 'rocode-sample/001-suma';
    const { runId, body } = await plannedRun(task);
    uncounted.add(task);
    await drive(cloud);
    uncounted.clear();
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ recorded: 0 });
    const [key] = await cloud.store.list(keys.itemsPrefix(runId));
    const document = await cloud.store.getText(key ?? '');
    expect(document).toBeDefined();

    // The item row is missing, so generate cannot tell; the judge's look before recording reads
    // the stored record, counts it and records nothing new.
    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.generate.url, MessageBody: body }));
    await drive(cloud);
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ recorded: 1 });
    expect(Object.values(run?.verdicts ?? {}).reduce((a, b) => a + (b ?? 0), 0)).toBe(1);
    expect(await cloud.store.list(keys.itemsPrefix(runId))).toEqual([key]);
    expect(await cloud.store.getText(key ?? '')).toBe(document);
  }, 180_000);

  it('an eventually consistent read that misses the count costs one model call, never a second record (a record generate makes: a failed generation)', async () => {
    const task = 'rocode-sample/001-suma';
    failOn.add(task);
    const { runId, body } = await plannedRun(task);
    await drive(cloud);
    const before = await cloud.ledger.getRun(runId);
    expect(before).toMatchObject({ status: 'completed', recorded: 1, verdicts: { SE: 1 } });

    // The item row is counted, but this read misses it (DynamoDB's eventually consistent GetItem).
    const countedVerdict = vi.spyOn(cloud.ledger, 'countedVerdict').mockResolvedValue(undefined);
    const put = vi.spyOn(cloud.store, 'put');
    calls.length = 0;
    try {
      await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.generate.url, MessageBody: body }));
      await drive(cloud);
      expect(countedVerdict).toHaveBeenCalled();
    } finally {
      countedVerdict.mockRestore();
      failOn.clear();
    }
    // The model is called again; generate's look before recording (scoreAndRecord) reads the stored record and records nothing.
    expect(calls).toEqual([task]);
    expect(put.mock.calls.filter(([key]) => key.startsWith(keys.itemsPrefix(runId)))).toEqual([]);
    put.mockRestore();
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', recorded: 1, verdicts: before?.verdicts });
  }, 180_000);

  it('runs a resume’s SE re-run (the row counts SE) and skips that message delivered again once re-recorded', async () => {
    const task = 'rocode-sample/002-cifre';
    failOn.add(task);
    const runId = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 2 });
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', verdicts: { SE: 1 } });
    failOn.clear();
    calls.length = 0;
    expect((await call(apiEvent('POST', `/runs/${runId}/resume`))).status).toBe(202);
    await driveStage('plan');
    const rerun = (await peekMessages(cloud.sqs, [cloud.queues.generate.url])).filter((b) => (JSON.parse(b) as WorkItem).taskId === task);
    expect(rerun).toHaveLength(1);
    expect((JSON.parse(rerun[0] ?? '{}') as WorkItem).previousVerdict).toBe('SE');
    await drive(cloud);
    expect(calls).toEqual([task]);
    const run = await cloud.ledger.getRun(runId);
    expect(run).toMatchObject({ status: 'completed', items: 2, recorded: 2 });
    expect(run?.verdicts.SE ?? 0).toBe(0);

    // The re-run's message again: the row now counts its new verdict, not SE — skipped, no model call.
    calls.length = 0;
    await cloud.sqs.send(new SendMessageCommand({ QueueUrl: cloud.queues.generate.url, MessageBody: rerun[0] }));
    await drive(cloud);
    expect(calls).toEqual([]);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ recorded: 2, verdicts: run?.verdicts });
  }, 180_000);
});
