import { describe, expect, it } from 'vitest';
import { ProviderError } from '#core/errors.ts';
import type { Provider } from '#core/models/provider.ts';
import { referenceProvider } from '#core/models/reference.ts';
import { aggregateRun, readItems } from '#core/report/aggregate.ts';
import type { GeneratedItem } from '#core/run/engine.ts';
import { recordItem } from '#core/run/engine.ts';
import { runPipeline } from '#core/run/pipeline.ts';
import { type LoadedBenchmark, type WorkItem } from '#core/run/plan.ts';
import { InProcessWorkQueue } from '#local/index.ts';
import { abricotFromRows, plannedRun } from '../../support/planned-run.ts';

const rows = Array.from({ length: 8 }, (_, i) => ({ id: `r${i}`, target_token: 'mare', text: `Il mare numero ${i}.`, abs_mean: i / 8, inc_mean: (7 - i) / 8 }));

const loaded = (): LoadedBenchmark => abricotFromRows(rows);

async function setup(provider: Provider, spec: Record<string, unknown> = {}) {
  const { store, ledger, plan, ctx } = await plannedRun(
    loaded(),
    provider,
    spec,
    { costOf: (u) => (u.promptTokens + u.completionTokens) * 0.001, projectCost: () => 0.011 },
    { prefix: 'pipeline-' },
  );
  const queues = () => ({
    generateQueue: new InProcessWorkQueue<WorkItem>({ maxAttempts: 1 }),
    scoreQueue: new InProcessWorkQueue<GeneratedItem>({ maxAttempts: 1, capacity: 2 }),
    generateConcurrency: 3,
    scoreConcurrency: 2,
  });
  return { store, ledger, ctx, plan, queues };
}

/** A chat model that answers a fixed digit, failing on chosen tasks. */
function digitModel(answer: string, failOn: Set<string> = new Set(), usage = { promptTokens: 10, completionTokens: 1 }): Provider {
  return {
    id: 'fake:digit',
    kind: 'fake',
    model: 'digit',
    async generate(req) {
      if (failOn.has(req.taskId)) throw new ProviderError('throttled until retries ran out', { retryable: true, status: 429 });
      return { text: answer, usage, latencyMs: 1, attempts: 1 };
    },
  };
}

describe('the local pipeline', () => {
  it('records one item per (task, sample) and aggregates them', async () => {
    const { ctx, plan, queues, store, ledger } = await setup(referenceProvider(), { n: 2 });
    const result = await runPipeline(ctx, plan.items, queues());
    expect(result).toEqual({ recorded: 32, skipped: 0 });
    const summary = await aggregateRun({ store, ledger, clock: ctx.clock, iterations: 200 }, plan.manifest);
    expect(summary.items).toBe(32);
    expect(summary.metrics['pearson/subtask=abstractness']?.value).toBeCloseTo(1, 12);
    expect((await ledger.getRun('run-1'))?.status).toBe('completed');
  });

  it('records a provider failure as SE on its item and never charges it to the model', async () => {
    const { ctx, plan, queues, store, ledger } = await setup(digitModel('3', new Set(['abstractness/r0'])));
    await runPipeline(ctx, plan.items, queues());
    const docs = await readItems(store, 'run-1');
    const failed = docs.find((d) => d.record.task_id === 'abstractness/r0');
    expect(failed?.record.verdict).toBe('SE');
    expect(failed?.record.error).toContain('throttled');
    const summary = await aggregateRun({ store, ledger, clock: ctx.clock, iterations: 100 }, plan.manifest);
    expect(summary.metrics['accuracy/subtask=abstractness']?.n).toBe(7);
  });

  it('runs SE samples again on resume and moves their count to the new verdict', async () => {
    const { ctx, plan, queues, store, ledger } = await setup(digitModel('3', new Set(['abstractness/r0', 'inclusiveness/r5'])));
    await runPipeline(ctx, plan.items, queues());
    expect((await ledger.getRun('run-1'))?.verdicts.SE).toBe(2);

    const again = await runPipeline({ ...ctx, provider: digitModel('3') }, plan.items, queues());

    expect(again).toEqual({ recorded: 2, skipped: 14 });
    const run = await ledger.getRun('run-1');
    expect(run?.recorded).toBe(16);
    expect(run?.verdicts.SE ?? 0).toBe(0);
    const docs = await readItems(store, 'run-1');
    expect(docs.filter((d) => d.record.verdict === 'SE')).toHaveLength(0);
    expect(docs).toHaveLength(16);
  });

  it('skips recorded items on a second pass and counts each once', async () => {
    const { ctx, plan, queues, ledger } = await setup(referenceProvider());
    await runPipeline(ctx, plan.items.slice(0, 5), queues());
    const again = await runPipeline(ctx, plan.items, queues());
    expect(again).toEqual({ recorded: 11, skipped: 5 });
    expect((await ledger.getRun('run-1'))?.recorded).toBe(16);
  });

  it('counts a redelivered item once while its record is overwritten in place', async () => {
    const { ctx, plan, ledger, store } = await setup(referenceProvider());
    const item = plan.items[0] as WorkItem;
    const generated: GeneratedItem = { item, raw: '2', answer: '2', usage: null, latencyMs: null, attempts: 1, likert: { mode: 'digit-parse', text: '2' } };
    const outcome = { verdict: 'WA' as const, testsPassed: 0, testsTotal: 1 };
    await Promise.all([recordItem(ctx, generated, outcome), recordItem(ctx, generated, outcome), recordItem(ctx, generated, outcome)]);
    expect((await ledger.getRun('run-1'))?.recorded).toBe(1);
    expect(await store.list('runs/run-1/items/')).toHaveLength(1);
  });

  it('stops itself once the first 10 generations all failed, before calls the scorer has not caught up with, recording every call made', async () => {
    let calls = 0;
    const refused: Provider = {
      ...digitModel('3'),
      async generate() {
        calls++;
        throw new ProviderError('HTTP 401: Incorrect API key provided', { retryable: false, status: 401 });
      },
    };
    const { ctx, plan, queues, store } = await setup(refused, { n: 2 });
    const result = await runPipeline(ctx, plan.items, queues());
    expect(plan.items).toHaveLength(32);
    expect(result.stoppedReason).toMatch(/^early stop: the first 10 items all ended SE/);
    // The 10th failed call stops the run: only the calls already in flight (3 at once) follow,
    // not the ones that went ahead of recording (score queue of 2, 2 scored at once).
    expect(calls).toBeLessThanOrEqual(10 + 3 - 1);
    // Every call made is recorded (SE, resumable); none is lost.
    expect(result.recorded).toBe(calls);
    expect(await readItems(store, 'run-1')).toHaveLength(calls);
  });

  it('stops before the cost cap is exceeded and leaves the rest to resume', async () => {
    const { ctx, plan, queues, ledger } = await setup(digitModel('3'), { maxCostUsd: 0.05 });
    const result = await runPipeline(ctx, plan.items, queues());
    expect(result.stoppedReason).toMatch(/cost cap/);
    // each call costs $0.011 and is projected at that before it is made: four fit under $0.05,
    // a fifth could overspend, even with three calls in flight at once
    expect(result.recorded).toBe(4);
    const spent = (await ledger.getRun('run-1'))?.costUsd ?? Infinity;
    expect(spent).toBeCloseTo(4 * 0.011, 10);
    expect(spent).toBeLessThanOrEqual(0.05);
  });
});
