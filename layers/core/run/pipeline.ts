/**
 * Drives one run through generate → score → record over two WorkQueues, with separate
 * bounded concurrency for generation and for scoring. Resumable: items already in the
 * store are skipped (and counted in the ledger if a crash came between write and count),
 * except samples the harness failed on (SE: a provider that gave up, a sandbox fault), which
 * run again and move their count to their new verdict.
 */
import { RunStopped } from '../errors.ts';
import type { WorkQueue } from '../ports.ts';
import type { GeneratedItem, RunContext } from './engine.ts';
import { generateItem, parseItemDocument, recordItem, scoreItem } from './engine.ts';
import { itemId, keys } from './keys.ts';
import type { WorkItem } from './plan.ts';

export interface PipelineOptions {
  generateQueue: WorkQueue<WorkItem>;
  scoreQueue: WorkQueue<GeneratedItem>;
  generateConcurrency: number;
  scoreConcurrency: number;
}

export interface PipelineResult {
  /** Items recorded by this invocation. */
  recorded: number;
  /** Items that were already recorded (resume). */
  skipped: number;
  /** Set when the run stopped before every item was recorded. */
  stoppedReason?: string;
}

export async function runPipeline(ctx: RunContext, items: readonly WorkItem[], opts: PipelineOptions): Promise<PipelineResult> {
  const runId = ctx.manifest.run_id;
  const stored = new Set(await ctx.store.list(keys.itemsPrefix(runId)));
  const counted = await ctx.ledger.recordedItems(runId);
  const pending: WorkItem[] = [];
  let skipped = 0;
  for (const item of items) {
    const key = keys.item(runId, item.taskId, item.sample);
    if (!stored.has(key)) {
      pending.push(item);
      continue;
    }
    const id = itemId(runId, item.taskId, item.sample);
    const text = await ctx.store.getText(key);
    const doc = text === undefined ? undefined : parseItemDocument(text, ctx.store.locate(key));
    // Written but not counted: the process died between the two writes.
    if (!counted.has(id) && doc) await ctx.ledger.recordItem(runId, id, doc.record.verdict);
    if (doc?.record.verdict === 'SE') {
      pending.push({ ...item, previousVerdict: 'SE' });
      continue;
    }
    skipped++;
  }

  let recorded = 0;
  const stopWith = (error: unknown): void => {
    if (ctx.stop.reason) return;
    ctx.stop.reason = (error as Error).message;
    if (!(error instanceof RunStopped)) ctx.stop.error = error as Error;
  };

  await opts.generateQueue.send(pending.map((item) => ({ id: itemId(runId, item.taskId, item.sample), body: item })));
  opts.generateQueue.close();

  const generating = opts.generateQueue
    .consume(
      async (message) => {
        if (ctx.stop.reason) return;
        try {
          const generated = await generateItem(ctx, message.body);
          await opts.scoreQueue.send([{ id: message.id, body: generated }]);
        } catch (error) {
          stopWith(error);
        }
      },
      { concurrency: opts.generateConcurrency },
    )
    .finally(() => opts.scoreQueue.close());

  const scoring = opts.scoreQueue.consume(
    async (message) => {
      if (ctx.stop.error) return;
      const outcome = await scoreItem(ctx, message.body);
      await recordItem(ctx, message.body, outcome);
      recorded++;
    },
    { concurrency: opts.scoreConcurrency },
  );

  await Promise.all([generating, scoring]);
  if (ctx.stop.error) throw ctx.stop.error;
  return { recorded, skipped, ...(ctx.stop.reason ? { stoppedReason: ctx.stop.reason } : {}) };
}
