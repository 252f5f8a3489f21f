import { describe, expect, it } from 'vitest';
import type { BatchClient, BatchJobStatus, BatchRecord, BatchResult } from '#core/models/batch.ts';
import { assignItems, batchKeys, chunkLines, type BatchJobDocument } from '#core/run/batch-jobs.ts';
import { generateInBatches } from '#core/run/batch-stage.ts';
import { storedJson } from '#core/run/documents.ts';
import type { GeneratedItem } from '#core/run/engine.ts';
import { type WorkItem } from '#core/run/plan.ts';
import { abricotFromRows, plannedRun } from '../../support/planned-run.ts';

/** An in-memory batch API: each job ends after `polls` polls; every record answers "3" for 10 + 1 tokens. */
class MemoryBatchClient implements BatchClient {
  readonly kind = 'memory';
  readonly jobs: { id: string; key: string; lines: string[]; polls: number }[] = [];
  readonly log: string[] = [];
  constructor(
    readonly limits = { maxRecords: 1000, maxBytes: 1_000_000, minRecords: 1 },
    private readonly polls = 1,
  ) {}
  encode(record: BatchRecord): string {
    return JSON.stringify({ id: record.recordId, task: record.request.taskId });
  }
  async submit(lines: readonly string[], key: string): Promise<string> {
    const id = `job-${this.jobs.length}`;
    this.jobs.push({ id, key, lines: [...lines], polls: 0 });
    return id;
  }
  async find(key: string): Promise<string | undefined> {
    return this.jobs.find((j) => j.key === key)?.id;
  }
  async status(jobId: string): Promise<BatchJobStatus> {
    const job = this.job(jobId);
    job.polls += 1;
    const done = job.polls > this.polls;
    this.log.push(`poll ${jobId}${done ? ' ended' : ''}`);
    const counts = { total: job.lines.length, succeeded: done ? job.lines.length : 0, failed: 0 };
    return done ? { phase: 'ended', ending: 'completed', providerStatus: 'done', counts } : { phase: 'running', providerStatus: 'busy', counts };
  }
  async results(jobId: string): Promise<BatchResult[]> {
    return this.job(jobId).lines.map((l) => ({
      recordId: (JSON.parse(l) as { id: string }).id,
      ok: true,
      generation: { text: '3', usage: { promptTokens: 10, completionTokens: 1 }, latencyMs: 0 },
    }));
  }
  async cancel(): Promise<void> {}
  private job(id: string) {
    const job = this.jobs.find((j) => j.id === id);
    if (!job) throw new Error(`no job ${id}`);
    return job;
  }
}

const rows = Array.from({ length: 3 }, (_, i) => ({ id: `r${i}`, target_token: 'mare', text: `Il mare numero ${i}.`, abs_mean: i / 3, inc_mean: 0.5 }));

async function setup(capUsd?: number) {
  const provider = { id: 'memory:m', kind: 'memory', model: 'm', generate: () => Promise.reject(new Error('a batch run makes no on-demand call')) };
  const { ctx, plan, store, ledger } = await plannedRun(
    abricotFromRows(rows),
    provider,
    { likertMode: 'digit-parse', ...(capUsd !== undefined ? { maxCostUsd: capUsd } : {}) },
    { costOf: (u) => (u.promptTokens + u.completionTokens) * 0.001, projectCost: () => 0.5 },
    { prefix: 'batch-stage-' },
  );
  return { ctx, plan, store, ledger };
}

function stage(client: BatchClient, log: string[] = []) {
  return {
    client,
    pollMs: 0,
    sleep: async () => {},
    byteLength: (t: string) => Buffer.byteLength(t),
    onStatus: (d: BatchJobDocument) => log.push(`status ${d.job_id} ${d.status?.provider_status}`),
  };
}

describe('batch jobs of a run', () => {
  it('splits records into jobs by the provider limits on records and bytes, keeping order', () => {
    const lines = ['aaaa', 'bb', 'cccccc', 'd', 'ee'];
    expect(chunkLines(lines, { maxRecords: 2, maxBytes: 100 }, (t) => t.length)).toEqual([[0, 1], [2, 3], [4]]);
    // A line takes its bytes and a newline: 5 + 3 fit in 8; 7 + 2 do not.
    expect(chunkLines(lines, { maxRecords: 10, maxBytes: 8 }, (t) => t.length)).toEqual([[0, 1], [2], [3, 4]]);
    expect(() => chunkLines(['x'.repeat(20)], { maxRecords: 10, maxBytes: 8 }, (t) => t.length)).toThrow(/over the provider's 8-byte job limit/);
  });

  it('reads an item from its latest job, and puts an SE recorded from that job into a new one', () => {
    const doc = (index: number, state: BatchJobDocument['state']): BatchJobDocument => ({
      run_id: 'r',
      index,
      key: `r/batch-${index}`,
      client: 'm',
      job_id: `j${index}`,
      state,
      reserved_usd: 0,
      records: [{ record_id: 'r0', task_id: 't', sample: 0 }],
    });
    const item: WorkItem = { runId: 'r', taskId: 't', sample: 0 };
    const retry: WorkItem = { ...item, previousVerdict: 'SE' };
    expect(assignItems([doc(0, 'submitted')], [item], () => undefined).fromJobs.get(0)).toEqual([item]);
    expect(assignItems([doc(0, 'settled')], [retry], () => 0).fresh).toEqual([retry]);
    // Answered by job 1 (the retry) but killed before it was recorded: read from job 1, not resubmitted.
    expect(assignItems([doc(0, 'settled'), doc(1, 'settled')], [retry], () => 0).fromJobs.get(1)).toEqual([retry]);
    expect(assignItems([], [item], () => undefined).fresh).toEqual([item]);
  });
});

describe('the batch generate stage', () => {
  it('scores the first job while the next one still runs', async () => {
    const { ctx, plan } = await setup();
    const client = new MemoryBatchClient({ maxRecords: 4, maxBytes: 1_000_000, minRecords: 1 }, 2);
    const emitted: string[] = [];
    await generateInBatches(ctx, plan.items, stage(client), async (g: GeneratedItem) => void emitted.push(`${g.item.taskId} after ${client.log.at(-1)}`));
    expect(client.jobs.map((j) => j.lines.length)).toEqual([4, 2]);
    expect(emitted).toHaveLength(6);
    // Job 0 ends on its third poll, before job 1's third poll: its items are handed on at once.
    expect(emitted.slice(0, 4).every((e) => e.endsWith('poll job-0 ended'))).toBe(true);
    expect(client.log.indexOf('poll job-0 ended')).toBeLessThan(client.log.indexOf('poll job-1 ended'));
  });

  it('finds a job a killed process created before recording its id, and bills it once at its actual cost', async () => {
    const { ctx, plan, store, ledger } = await setup(10);
    const client = new MemoryBatchClient();
    // The killed process: reserved and stored the job, created it, died before storing its id.
    await ledger.trySpend('run-1', 3, 10);
    const records = plan.items.map((item, i) => ({ record_id: `r${i}`, task_id: item.taskId, sample: item.sample }));
    const doc: BatchJobDocument = {
      run_id: 'run-1',
      index: 0,
      key: 'run-1/batch-0',
      client: 'memory',
      job_id: null,
      state: 'submitting',
      reserved_usd: 3,
      records,
    };
    await store.put(batchKeys.job('run-1', 0), storedJson(doc), 'application/json');
    await client.submit(
      records.map((r) => JSON.stringify({ id: r.record_id })),
      'run-1/batch-0',
    );
    const emitted: GeneratedItem[] = [];
    await generateInBatches(ctx, plan.items, stage(client), async (g) => void emitted.push(g));
    expect(client.jobs).toHaveLength(1);
    expect(emitted.map((g) => [g.answer, g.batchJob])).toEqual(plan.items.map(() => ['3', 0]));
    expect((await ledger.getRun('run-1'))?.costUsd).toBeCloseTo(plan.items.length * 11 * 0.001, 9);
    // Read again (a kill before the items were recorded): the results come back, the cost does not.
    await generateInBatches(ctx, plan.items, stage(client), async () => {});
    expect((await ledger.getRun('run-1'))?.costUsd).toBeCloseTo(plan.items.length * 11 * 0.001, 9);
  });

  it('reserves a job worst case before creating it, and creates none past --max-cost', async () => {
    const { ctx, plan } = await setup(1);
    const client = new MemoryBatchClient();
    await expect(generateInBatches(ctx, plan.items, stage(client), async () => {})).rejects.toThrow(/cost cap/);
    expect(client.jobs).toHaveLength(0);
  });

  describe('a create that fails', () => {
    /** Creates the job (or not), then fails as a timed-out or refused create does at the client. */
    class FailingCreate extends MemoryBatchClient {
      constructor(
        private readonly created: boolean,
        private readonly error: Error,
      ) {
        super();
      }
      override async submit(lines: readonly string[], key: string): Promise<string> {
        if (this.created) await super.submit(lines, key);
        throw this.error;
      }
    }
    const timeout = (): Error => Object.assign(new Error('request timed out after 60000 ms'), { name: 'TimeoutError' });
    const refusal = (): Error => Object.assign(new Error('HTTP 403: not allowed'), { status: 403 });

    async function failedRun(client: BatchClient): Promise<number | undefined> {
      const { ctx, plan, ledger } = await setup(10);
      await expect(generateInBatches(ctx, plan.items, stage(client), async () => {})).rejects.toThrow();
      return (await ledger.getRun(ctx.manifest.run_id))?.costUsd;
    }

    it('keeps the reservation of a job the provider created though the client saw a timeout (find shows it)', async () => {
      const client = new FailingCreate(true, timeout());
      // 6 items at a projected $0.5: the job runs at the provider and may bill up to that.
      expect(await failedRun(client)).toBeCloseTo(3, 9);
      expect(client.jobs).toHaveLength(1);
    });

    it('gives the reservation back when find shows no job, or the create was refused', async () => {
      expect(await failedRun(new FailingCreate(false, timeout()))).toBe(0);
      const noFind = (error: Error): BatchClient => Object.assign(new FailingCreate(false, error), { find: undefined });
      expect(await failedRun(noFind(refusal()))).toBe(0);
      // Without find, a timeout leaves it unknown whether the job exists: its worst case stays booked.
      expect(await failedRun(noFind(timeout()))).toBeCloseTo(3, 9);
    });
  });

  it('records the job state and counts as the run status line', async () => {
    const { ctx, plan, ledger } = await setup();
    const log: string[] = [];
    const reasons: string[] = [];
    const setStatus = ledger.setStatus.bind(ledger);
    ledger.setStatus = async (runId, status, reason) => {
      if (reason) reasons.push(reason);
      return setStatus(runId, status, reason);
    };
    await generateInBatches(ctx, plan.items, stage(new MemoryBatchClient(), log), async () => {});
    expect(log).toEqual(['status job-0 busy', 'status job-0 done']);
    expect(reasons).toEqual(['batch job job-0: busy, 0/6 succeeded', 'batch job job-0: done, 6/6 succeeded']);
  });
});
