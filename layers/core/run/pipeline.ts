/**
 * Drives one run through generate → score → record over two WorkQueues, with separate
 * bounded concurrency for generation and for scoring. Resumable: items already in the
 * store are skipped (and counted in the ledger if a crash came between write and count),
 * except samples the harness failed on (SE: a provider that gave up, a sandbox fault), which
 * run again and move their count to their new verdict.
 *
 * An optional {@link ItemGate} bounds items in flight beyond this run: a permit is taken
 * before an item's model call and given back once the item is recorded (or dropped), so a
 * sweep's concurrent runs share one bound on the items the grid holds at once.
 */
import { RunStopped } from '../errors.ts';
import type { WorkQueue } from '../ports.ts';
import type { GeneratedItem, RunContext } from './engine.ts';
import { generateItem, recordItem, scoreItem } from './engine.ts';
import { itemToSend, recordsOf, resumeDecisions, stageErrorDecision } from './lifecycle.ts';
import { EARLY_STOP_FIRST as EARLY_STOP_DEFAULT, EarlyStopWatch, generatedRecord } from './early-stop.ts';
import { itemId } from './keys.ts';
import type { WorkItem } from './plan.ts';

export interface PipelineOptions {
  generateQueue: WorkQueue<WorkItem>;
  scoreQueue: WorkQueue<GeneratedItem>;
  generateConcurrency: number;
  scoreConcurrency: number;
  /** Items in flight shared with other runs (a sweep's grid); none = only this run's own bounds. */
  gate?: ItemGate;
  /**
   * Generates every pending item at once instead of one call per item (`--batch`: the
   * provider's batch jobs, run/batch-stage.ts), handing each result to `emit`. The gate
   * does not apply: the provider holds the work, and the score queue bounds what waits here.
   */
  generateAll?: (items: readonly WorkItem[], emit: (generated: GeneratedItem) => Promise<void>) => Promise<void>;
}

/**
 * A bound on items in flight shared by several runs: `acquire` resolves with the function
 * that gives the permit back (calling it twice gives it back once).
 *
 * @example
 * const release = await gate.acquire();
 * try { await work(); } finally { release(); }
 */
export interface ItemGate {
  acquire(): Promise<() => void>;
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
  // What to do with each planned item (lifecycle.ts: the rules the cloud's resume and stages use too).
  const decisions = await resumeDecisions(recordsOf(ctx.store, ctx.ledger), runId, items);
  const pending = decisions.map(itemToSend).filter((item): item is WorkItem => item !== undefined);
  const skipped = decisions.length - pending.length;

  let recorded = 0;
  // The first items of this invocation decide whether the rest would fail alike; a run with no
  // more items than that has nothing to save.
  const rule = ctx.manifest.early_stop === undefined ? { first: EARLY_STOP_DEFAULT } : ctx.manifest.early_stop;
  // A batch job (`generateAll`) has generated every item before the first is recorded: nothing
  // is left to save, and its SE records (a cancelled job) are for --resume to send again.
  const watching = rule && !opts.generateAll && pending.length > rule.first;
  // Two watches of the same rule: generations (what a call already tells: the stop comes before
  // the calls scoring has not caught up with) and records (the SEs only the scorer sees).
  const watch = watching ? new EarlyStopWatch(rule.first) : undefined;
  const generatedWatch = watching ? new EarlyStopWatch(rule.first) : undefined;
  const stopWith = (error: unknown): void => {
    if (ctx.stop.reason) return;
    ctx.stop.reason = (error as Error).message;
    // lifecycle.ts: a stop on purpose stops the run; anything else fails it (nothing here delivers an item twice).
    if (stageErrorDecision(error, { redelivers: false }) !== 'stop') ctx.stop.error = error as Error;
  };
  const stopEarly = (reason: string | undefined): void => {
    if (!reason || ctx.stop.reason) return;
    ctx.stop.early = true;
    stopWith(new RunStopped(reason));
  };

  // Permits of items generated and not yet recorded, by message id.
  const permits = new Map<string, () => void>();
  const release = (id: string): void => {
    permits.get(id)?.();
    permits.delete(id);
  };

  const { generateAll } = opts;
  if (!generateAll) await opts.generateQueue.send(pending.map((item) => ({ id: itemId(runId, item.taskId, item.sample), body: item })));
  opts.generateQueue.close();

  const generating = (
    generateAll
      ? generateAll(pending, (generated) => opts.scoreQueue.send([{ id: itemId(runId, generated.item.taskId, generated.item.sample), body: generated }])).catch(
          stopWith,
        )
      : opts.generateQueue.consume(
          async (message) => {
            if (ctx.stop.reason) return;
            if (opts.gate) permits.set(message.id, await opts.gate.acquire());
            try {
              if (ctx.stop.reason) return release(message.id);
              const generated = await generateItem(ctx, message.body);
              await opts.scoreQueue.send([{ id: message.id, body: generated }]);
              stopEarly(generatedWatch?.observe(generatedRecord(generated)));
            } catch (error) {
              release(message.id);
              stopWith(error);
            }
          },
          { concurrency: opts.generateConcurrency },
        )
  ).finally(() => opts.scoreQueue.close());

  const scoring = opts.scoreQueue.consume(
    async (message) => {
      try {
        if (ctx.stop.error) return;
        const outcome = await scoreItem(ctx, message.body);
        const record = await recordItem(ctx, message.body, outcome);
        recorded++;
        stopEarly(watch?.observe(record));
      } finally {
        release(message.id);
      }
    },
    { concurrency: opts.scoreConcurrency },
  );

  await Promise.all([generating, scoring]);
  for (const id of [...permits.keys()]) release(id);
  if (ctx.stop.error) throw ctx.stop.error;
  return { recorded, skipped, ...(ctx.stop.reason ? { stoppedReason: ctx.stop.reason } : {}) };
}
