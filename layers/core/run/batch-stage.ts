/**
 * generate, as a batch: the pending items of a run become records of provider batch jobs
 * (run/batch-jobs.ts stores them), the jobs are polled, and each job's results are handed
 * to the score stage as soon as that job ends — a large run is split into jobs within the
 * provider's limits, so the first jobs are scored while later ones still run. A provider
 * writes a job's results only when the job ends (OpenAI's output file, Anthropic's
 * results_url, Bedrock's .jsonl.out), so no result of a job can be scored earlier.
 *
 * Spend: a job reserves its worst case (every record's prompt + max_tokens, at the batch
 * price) against `--max-cost` before it is created, and is settled once, to what its results
 * billed, when it ends. A record the provider failed (an error line, an expired or cancelled
 * job) becomes SE with the provider's reason: recorded, never lost, and submitted again in a
 * new job on `--resume`; a record that succeeded is never submitted again.
 */
import { InputError } from '../errors.ts';
import type { BatchClient, BatchJobStatus, BatchRecord, BatchResult } from '../models/index.ts';
import { scorerOf } from '../scorers/index.ts';
import type { Task, TokenUsage } from '../types.ts';
import { costGuardOf, parseItemDocument, sentMaxTokens, type GeneratedItem, type RunContext } from './engine.ts';
import { assignItems, batchKeys, bodyHash, chunkLines, describeJob, itemKeyOf, parseBatchJob, type BatchJobDocument } from './batch-jobs.ts';
import { storedJson } from './documents.ts';
import { keys } from './keys.ts';
import type { WorkItem } from './plan.ts';

export interface BatchStageOptions {
  client: BatchClient;
  /** Time between two polls of the jobs still running. */
  pollMs: number;
  sleep: (ms: number) => Promise<void>;
  /** Bytes of a line in UTF-8 (the providers' file limits are in bytes). */
  byteLength: (text: string) => number;
  /** Sees each job's document whenever its status changes. */
  onStatus?: (job: BatchJobDocument) => void;
}

/** Generates `items` through batch jobs and hands every result to `emit` (the score stage). */
export async function generateInBatches(
  ctx: RunContext,
  items: readonly WorkItem[],
  opts: BatchStageOptions,
  emit: (generated: GeneratedItem) => Promise<void>,
): Promise<void> {
  if (items.length === 0) return;
  const docs = await loadJobs(ctx);
  const recorded = await recordedJobs(ctx, items);
  const { fromJobs, fresh } = assignItems(docs, items, (item) => recorded.get(itemKeyOf(item))?.job);
  refuseUnchangedRejections(ctx, docs, fresh, recorded, opts.client);
  const active = docs.filter((d) => fromJobs.has(d.index));
  let next = docs.reduce((max, d) => Math.max(max, d.index + 1), 0);
  for (const chunk of chunkRecords(ctx, fresh, opts)) {
    const index = next++;
    fromJobs.set(index, chunk.items);
    active.push(await reserve(ctx, opts.client, index, chunk));
  }
  const wanted = (doc: BatchJobDocument): Map<string, WorkItem> => new Map((fromJobs.get(doc.index) ?? []).map((i) => [itemKeyOf(i), i]));
  // Jobs are created before polling, side by side — within the model's enqueued-token limit,
  // where the provider has one: the rest are staggered, each created once earlier jobs ended
  // and left room (OpenAI fails a job that would pass it with `token_limit_exceeded`).
  const limit = opts.client.limits.maxEnqueuedTokens ?? Infinity;
  const unsent = active.filter((d) => d.state === 'submitting');
  let waiting = active.filter((d) => d.state !== 'submitting');
  const inFlight = (): number => waiting.filter((d) => d.state !== 'settled').reduce((sum, d) => sum + (d.enqueued_tokens ?? 0), 0);
  // The job whose create failed: the provider may have created it all the same (see releaseUncreated).
  let failedSubmit: { doc: BatchJobDocument; error: unknown } | undefined;
  try {
    while ((waiting.length > 0 || unsent.length > 0) && !ctx.stop.reason) {
      while (unsent.length > 0 && (inFlight() + ((unsent[0] as BatchJobDocument).enqueued_tokens ?? 0) <= limit || inFlight() === 0)) {
        const doc = unsent[0] as BatchJobDocument;
        // A job whose reservation was given back (see releaseUncreated) reserves again first.
        await reservePlannedJob(ctx, doc);
        try {
          await submitJob(ctx, opts.client, doc);
        } catch (error) {
          failedSubmit = { doc, error };
          throw error;
        }
        unsent.shift();
        waiting.push(doc);
      }
      const still: BatchJobDocument[] = [];
      for (const doc of waiting) {
        if (ctx.stop.reason) return;
        const status = doc.state === 'settled' ? undefined : await pollJob(ctx, opts, doc);
        if (status && status.phase !== 'ended') still.push(doc);
        else await finishJob(ctx, opts.client, doc, wanted(doc), emit);
      }
      waiting = still;
      if (waiting.length > 0 || unsent.length > 0) await opts.sleep(opts.pollMs);
    }
  } finally {
    await releaseUncreated(ctx, opts.client, unsent, failedSubmit);
  }
}

/**
 * Gives back the reservations of jobs this run leaves without creating them (a submit that
 * failed — the host unreachable, the server refusing —, a stop before their turn): nothing
 * was sent, so nothing is owed, as the cloud's batch stage releases a stopped run's uncreated
 * jobs (layers/app/cloud/batch.ts stopJobs). Each is marked `reserve_pending`, so `--resume`
 * reserves its worst case again before it looks for the job (`find`: one whose creation
 * answer was lost is found, not created twice) or creates it.
 *
 * A create that failed without a clear refusal (a timeout, a dropped connection, a 5xx) may
 * have created the job at the provider, which then runs and bills: its reservation is kept
 * (spend errs high, as in finishJob) unless `find` shows no such job.
 */
async function releaseUncreated(
  ctx: RunContext,
  client: BatchClient,
  docs: readonly BatchJobDocument[],
  failed: { doc: BatchJobDocument; error: unknown } | undefined,
): Promise<void> {
  for (const doc of docs) {
    if (doc.job_id !== null || doc.reserve_pending === true) continue;
    if (doc === failed?.doc && !(await neverCreated(client, doc, failed.error))) continue;
    const usd = doc.reserved_usd;
    doc.reserved_usd = 0;
    doc.reserve_pending = true;
    // Stored first, as finishJob does: a kill between the two leaves the reservation booked and
    // --resume reserving again (spend errs high), never a document holding a reservation given back.
    await saveJob(ctx, doc);
    if (usd > 0) await costGuardOf(ctx).release({ usd, estimate: 0, settled: false });
  }
}

/**
 * Whether the provider surely holds no job for `doc` after its create failed with `error`: the
 * failure was a refusal — an HTTP 4xx answer other than 408/409 (a 409 is OpenAI's lock timeout:
 * the request may have gone through), or a connection never made (nothing listening, no such
 * host), so nothing was sent — or else `find` (where the client has one) finds no such job.
 * The refusal is read first: a host that refused the create would refuse `find` too, after its retries.
 */
async function neverCreated(client: BatchClient, doc: BatchJobDocument, error: unknown): Promise<boolean> {
  for (let e = error, depth = 0; e !== null && typeof e === 'object' && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    const { status, code } = e as { status?: unknown; code?: unknown };
    if (typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 409) return true;
    if (typeof code === 'string' && NOT_CONNECTED.has(code)) return true;
  }
  if (!client.find) return false;
  try {
    return (await client.find(doc.key)) === undefined;
  } catch {
    return false;
  }
}

/** Connection errors raised before a request is sent (Node's and undici's codes). */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** Every batch job document of the run, in index order. */
export async function loadJobs(ctx: RunContext): Promise<BatchJobDocument[]> {
  const out: BatchJobDocument[] = [];
  for (const key of await ctx.store.list(batchKeys.prefix(ctx.manifest.run_id))) {
    const text = await ctx.store.getText(key);
    if (text !== undefined) out.push(parseBatchJob(text, ctx.store.locate(key)));
  }
  return out.sort((a, b) => a.index - b.index);
}

/** The job each already-recorded pending item (an SE to run again) was answered by, and the error it was recorded with. */
async function recordedJobs(ctx: RunContext, items: readonly WorkItem[]): Promise<Map<string, { job: number; error: string | null }>> {
  const out = new Map<string, { job: number; error: string | null }>();
  for (const item of items.filter((i) => i.previousVerdict !== undefined)) {
    const key = keys.item(item.runId, item.taskId, item.sample);
    const text = await ctx.store.getText(key);
    if (text === undefined) continue;
    const doc = parseItemDocument(text, ctx.store.locate(key));
    const job = (doc.generation as { batch_job?: unknown }).batch_job;
    if (typeof job === 'number') out.set(itemKeyOf(item), { job, error: doc.record.error });
  }
  return out;
}

/**
 * A record the server rejected with a 400 (an unsupported parameter, a value the model does not
 * take) is refused on `--resume` when its body would go out unchanged: the same body gets the
 * same answer, billed in the provider's queue time, and the run would never end. Something must
 * change first (a rule in --capabilities, a setting of the run).
 * @throws InputError naming the job, the server's reason and how many records it concerns.
 */
function refuseUnchangedRejections(
  ctx: RunContext,
  docs: readonly BatchJobDocument[],
  fresh: readonly WorkItem[],
  recorded: Map<string, { job: number; error: string | null }>,
  client: BatchClient,
): void {
  const unchanged: { job: string; reason: string }[] = [];
  for (const item of fresh) {
    const previous = recorded.get(itemKeyOf(item));
    const rejected = previous?.error ? /HTTP 4\d\d: (.*)$/s.exec(previous.error) : null;
    if (!previous || !rejected) continue;
    const doc = docs.find((d) => d.index === previous.job);
    const ref = doc?.records.find((r) => r.task_id === item.taskId && r.sample === item.sample);
    if (!ref?.body_hash || ref.body_hash !== bodyHash(client.encode(recordOf(ctx, item, HASHED_ID)))) continue;
    unchanged.push({ job: doc?.job_id ?? `#${previous.job}`, reason: (rejected[1] ?? '').slice(0, 200) });
  }
  const first = unchanged[0];
  if (!first) return;
  throw new InputError(
    `--resume would send ${unchanged.length} request(s) of batch job ${first.job} again unchanged, and the server rejected them (${first.reason}); change what it refused first (give --resume a rule in --capabilities, e.g. another max_tokens_field or reasoning_effort), or leave these items SE and run those tasks in a new run without --batch (a resumed run keeps its batch mode)`,
    { field: 'resume' },
  );
}

function taskOf(ctx: RunContext, item: WorkItem): Task {
  const task = ctx.tasks.get(item.taskId);
  if (!task) throw new InputError(`unknown task ${item.taskId} in run ${item.runId}`);
  return task;
}

/** The record of one item: the prompt and settings an on-demand call would send. */
function recordOf(ctx: RunContext, item: WorkItem, recordId: string): BatchRecord & { estimate: number } {
  const task = taskOf(ctx, item);
  if (scorerOf(task).choiceGeneration?.(ctx) !== undefined) {
    throw new InputError(
      `--batch generates text: likert mode ${ctx.manifest.likert_mode} reads log-probabilities, which batch jobs do not return (use --likert-mode digit-parse)`,
      { field: 'likertMode' },
    );
  }
  const prompt = ctx.benchmark.buildPrompt(task, { pool: ctx.pool, ...(item.language ? { language: item.language } : {}) });
  const request = { taskId: task.id, sample: item.sample, prompt, params: ctx.manifest.params, ...(item.language ? { language: item.language } : {}) };
  return { recordId, request, estimate: ctx.projectCost?.(prompt, sentMaxTokens(ctx, prompt), 1) ?? 0 };
}

/**
 * The record id a body is hashed under: one constant for every record, so the hash is the body's
 * alone, and a valid id for every client's encoder (Anthropic's custom_id takes 1–64 letters,
 * digits, `_` or `-`; an empty one is refused).
 */
const HASHED_ID = 'hashed';

interface Chunk {
  items: WorkItem[];
  estimate: number;
  /** Input tokens counted against the model's enqueued-token limit (0 where the provider has none). */
  tokens: number;
  /** Each record's body hash (custom id aside). */
  hashes: string[];
}

/** New jobs for `fresh` items, each within the provider's limits. Record ids are `r<n>` within a job. */
function chunkRecords(ctx: RunContext, fresh: readonly WorkItem[], opts: BatchStageOptions): Chunk[] {
  if (fresh.length === 0) return [];
  const { limits } = opts.client;
  const sized = fresh.map((item, i) => {
    const record = recordOf(ctx, item, `r${i}`);
    return { item, record, tokens: opts.client.enqueuedTokens?.(record) ?? 0, hash: bodyHash(opts.client.encode({ ...record, recordId: HASHED_ID })) };
  });
  const chunks = chunkLines(
    sized.map((s) => opts.client.encode(s.record)),
    limits,
    opts.byteLength,
    sized.map((s) => s.tokens),
  ).map((indexes) => ({
    items: indexes.map((i) => sized[i]?.item as WorkItem),
    estimate: indexes.reduce((sum, i) => sum + (sized[i]?.record.estimate ?? 0), 0),
    tokens: indexes.reduce((sum, i) => sum + (sized[i]?.tokens ?? 0), 0),
    hashes: indexes.map((i) => sized[i]?.hash ?? ''),
  }));
  const small = chunks.find((c) => c.items.length < limits.minRecords);
  if (small)
    throw new InputError(
      `--batch: ${opts.client.kind} takes at least ${limits.minRecords} records per job, and a job of this run would have ${small.items.length}; run it without --batch`,
      { field: 'batch' },
    );
  return chunks;
}

/** Reserves a new job's worst case (RunStopped past the cap: nothing is created) and stores its document. */
async function reserve(ctx: RunContext, client: BatchClient, index: number, chunk: Chunk): Promise<BatchJobDocument> {
  const runId = ctx.manifest.run_id;
  const reservation = await costGuardOf(ctx).reserve(chunk.estimate);
  const doc: BatchJobDocument = {
    run_id: runId,
    index,
    key: `${runId}/batch-${index}`,
    client: client.kind,
    job_id: null,
    state: 'submitting',
    reserved_usd: reservation.usd,
    ...(chunk.tokens > 0 ? { enqueued_tokens: chunk.tokens } : {}),
    records: chunk.items.map((item, i) => ({
      record_id: `r${i}`,
      task_id: item.taskId,
      sample: item.sample,
      ...(item.language ? { language: item.language } : {}),
      ...(chunk.hashes[i] ? { body_hash: chunk.hashes[i] } : {}),
    })),
  };
  await saveJob(ctx, doc);
  return doc;
}

/**
 * Reserves the worst case of a job whose document was written without a reservation
 * (`reserve_pending`: the cloud's plan writes the documents, its batch stage reserves before
 * creating the job). RunStopped past the cap: the job is never created.
 */
export async function reservePlannedJob(ctx: RunContext, doc: BatchJobDocument): Promise<void> {
  if (doc.reserve_pending !== true) return;
  const estimate = doc.records.reduce((sum, r) => sum + recordOf(ctx, itemOfRef(doc, r), r.record_id).estimate, 0);
  const reservation = await costGuardOf(ctx).reserve(estimate);
  doc.reserved_usd = reservation.usd;
  delete doc.reserve_pending;
  await saveJob(ctx, doc);
}

/** The work item a record of a job stands for. */
function itemOfRef(doc: BatchJobDocument, r: BatchJobDocument['records'][number]): WorkItem {
  return { runId: doc.run_id, taskId: r.task_id, sample: r.sample, ...(r.language ? { language: r.language } : {}) };
}

/** Creates the job of a `submitting` document (or finds the one a killed process created) and stores its id. */
export async function submitJob(ctx: RunContext, client: BatchClient, doc: BatchJobDocument): Promise<void> {
  if (doc.job_id !== null) return;
  if (doc.reserve_pending === true) throw new Error(`batch job ${doc.key} has no reservation yet (reservePlannedJob first)`);
  const found = await client.find?.(doc.key);
  const itemOf = (r: BatchJobDocument['records'][number]): WorkItem => itemOfRef(doc, r);
  doc.job_id =
    found ??
    (await client.submit(
      doc.records.map((r) => client.encode(recordOf(ctx, itemOf(r), r.record_id))),
      doc.key,
    ));
  doc.state = 'submitted';
  doc.submitted_at = ctx.clock().toISOString();
  await saveJob(ctx, doc);
}

/**
 * Polls a submitted job; a changed status is stored, shown as the run's status line (unless the
 * run has ended: `announce` false, so a stopped run is not set running again) and passed to `onStatus`.
 */
export async function pollJob(
  ctx: RunContext,
  opts: Pick<BatchStageOptions, 'client' | 'onStatus'>,
  doc: BatchJobDocument,
  announce = true,
): Promise<BatchJobStatus> {
  const status = await opts.client.status(doc.job_id as string);
  const next = {
    phase: status.phase,
    ...(status.ending ? { ending: status.ending } : {}),
    provider_status: status.providerStatus,
    total: status.counts.total,
    succeeded: status.counts.succeeded,
    failed: status.counts.failed,
    ...(status.reason ? { reason: status.reason } : {}),
    ...(status.expiresAt ? { expires_at: status.expiresAt } : {}),
  };
  if (JSON.stringify(next) !== JSON.stringify(doc.status)) {
    doc.status = next;
    await saveJob(ctx, doc);
    if (announce) await ctx.ledger.setStatus(ctx.manifest.run_id, 'running', describeJob(doc));
    opts.onStatus?.(doc);
  }
  return status;
}

/** Reads an ended job's results, books its cost once, and hands the wanted items to scoring. */
export async function finishJob(
  ctx: RunContext,
  client: BatchClient,
  doc: BatchJobDocument,
  wanted: Map<string, WorkItem>,
  emit: (g: GeneratedItem) => Promise<void>,
): Promise<void> {
  const results = new Map((await client.results(doc.job_id as string)).map((r) => [r.recordId, r]));
  if (doc.state !== 'settled') {
    // Stored first: a kill between the two leaves the reservation booked (spend errs high, never twice).
    doc.state = 'settled';
    await saveJob(ctx, doc);
    await costGuardOf(ctx).settle({ usd: doc.reserved_usd, estimate: 0, settled: false }, billedBy(results.values()));
  }
  const ending = doc.status?.ending ?? 'completed';
  for (const ref of doc.records) {
    const item = wanted.get(itemKeyOf({ taskId: ref.task_id, sample: ref.sample }));
    if (!item || ctx.stop.error) continue;
    await emit(generatedOf(ctx, client, item, doc, results.get(ref.record_id), ending));
  }
}

function billedBy(results: Iterable<BatchResult>): TokenUsage {
  const total = { promptTokens: 0, completionTokens: 0 };
  for (const r of results) {
    const usage = r.ok ? r.generation.usage : r.billed;
    total.promptTokens += usage?.promptTokens ?? 0;
    total.completionTokens += usage?.completionTokens ?? 0;
  }
  return total;
}

/** A record's result as the score stage takes it: a generation, or an SE with the provider's reason. */
function generatedOf(
  ctx: RunContext,
  client: BatchClient,
  item: WorkItem,
  doc: BatchJobDocument,
  result: BatchResult | undefined,
  ending: string,
): GeneratedItem {
  const base = { item, latencyMs: null, attempts: 1, batchJob: doc.index };
  if (!result || !result.ok) {
    const why = result ? result.error : `no result for this record${doc.status?.reason ? ` (${doc.status.reason})` : ''}`;
    return {
      ...base,
      raw: '',
      answer: '',
      usage: result && !result.ok && result.billed ? result.billed : null,
      failure: `generation: batch job ${doc.job_id} ${ending}: ${why}`,
    };
  }
  const task = taskOf(ctx, item);
  const generation = client.finish?.(result.generation, ctx.manifest.params) ?? result.generation;
  const answer = ctx.benchmark.postprocess(generation.text, task, item.language);
  return {
    ...base,
    raw: generation.text,
    answer,
    usage: generation.usage,
    ...(generation.refusal ? { refusal: generation.refusal } : {}),
    ...scorerOf(task).textEvidence?.(answer),
  };
}

/** Stores a job's document (runs/<id>/batches/<index>.json). */
export async function saveJob(ctx: Pick<RunContext, 'store'>, doc: BatchJobDocument): Promise<void> {
  await ctx.store.put(batchKeys.job(doc.run_id, doc.index), storedJson(doc, 2), 'application/json');
}
