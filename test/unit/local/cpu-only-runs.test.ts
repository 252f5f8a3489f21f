/**
 * A local run whose model and scorer need no I/O (`reference`, `replay:`, likert scoring)
 * records with synchronous file calls, so its item loop would settle as microtasks only and
 * hold up everything else in the process until it ends. It lets the event loop turn every
 * few ms instead: the other cells of a `--concurrency` sweep go on beside it (one that was
 * still reading its dataset included) and timers fire — the sweep's progress bars redraw on
 * a timer, a model call's timeout is one.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Provider } from '#core/models/provider.ts';
import { referenceProvider } from '#core/models/reference.ts';
import type { GeneratedItem } from '#core/run/engine.ts';
import { runPipeline } from '#core/run/pipeline.ts';
import { type WorkItem } from '#core/run/plan.ts';
import { InProcessWorkQueue } from '#local/index.ts';
import { SLICE_MS, turnWhenDue } from '#local/event-loop-turn.ts';
import { abricotFromRows, plannedRun } from '../../support/planned-run.ts';

const ROWS = 150; // 300 items (two subtasks per row)

/** Keeps the CPU busy for `ms`, as a model's answer parsing or a scorer would. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** The reference model (answers with the gold value, no I/O), spending `ms` of CPU per call. */
function cpuOnlyModel(ms: number): Provider {
  const reference = referenceProvider();
  return {
    ...reference,
    generate: async (req) => {
      busy(ms);
      return reference.generate(req);
    },
  };
}

/** A run of ROWS ABRICOT rows in its own store; `onRecorded` sees each recorded item. */
async function cpuOnlyRun(runId: string, onRecorded: () => void) {
  const rows = Array.from({ length: ROWS }, (_, i) => ({
    id: `r${i}`,
    target_token: 'mare',
    text: `Il mare numero ${i}.`,
    abs_mean: (i % 10) / 10,
    inc_mean: 0.5,
  }));
  const { plan, ctx } = await plannedRun(
    abricotFromRows(rows),
    cpuOnlyModel(0.5),
    { model: 'reference' },
    { onEvent: onRecorded },
    { prefix: 'cpu-only-run-', runId },
  );
  // The local run's own wiring (layers/app/local/run.ts): in-process queues, one scoring job.
  const go = () =>
    runPipeline(ctx, plan.items, {
      generateQueue: new InProcessWorkQueue<WorkItem>({ maxAttempts: 1 }),
      scoreQueue: new InProcessWorkQueue<GeneratedItem>({ maxAttempts: 1, capacity: 4 }),
      generateConcurrency: 4,
      scoreConcurrency: 1,
    });
  return { go, items: plan.items.length };
}

describe('a run that needs no I/O', () => {
  it('lets timers fire while it records its items (progress redraws, model-call timeouts)', async () => {
    let recorded = 0;
    const run = await cpuOnlyRun('run-cpu', () => void (recorded += 1));
    let ticksMidRun = 0;
    const timer = setInterval(() => {
      if (recorded > 0 && recorded < run.items) ticksMidRun += 1;
    }, 1);
    try {
      const result = await run.go();
      expect(result.recorded).toBe(run.items);
    } finally {
      clearInterval(timer);
    }
    // ~150 ms of work between the first record and the last: a turn every SLICE_MS at least.
    expect(ticksMidRun).toBeGreaterThanOrEqual(5);
  });

  it('goes on beside a sweep cell that starts while it runs and first reads its dataset from disk', async () => {
    const order: string[] = [];
    let second: Promise<unknown> | undefined;
    const b = await cpuOnlyRun('run-b', () => void order.push('b'));
    const a = await cpuOnlyRun('run-a', () => {
      order.push('a');
      // The next cell of a --concurrency sweep starts once this one is under way, and loads first.
      second ??= readFile(import.meta.filename).then(() => b.go());
    });
    await a.go();
    await second;
    expect(order.filter((r) => r === 'b')).toHaveLength(b.items);
    // The second run recorded work while the first was still going, long before its end.
    expect(order.indexOf('b')).toBeLessThan(order.lastIndexOf('a') - 100);
  });
});

describe('turnWhenDue', () => {
  it('once a slice of work is spent, hands every caller the same next turn; due timers have run within two turns', async () => {
    let timerFired = false;
    setTimeout(() => (timerFired = true), 0);
    busy(SLICE_MS + 2);
    const turn = turnWhenDue();
    expect(turn).toBeInstanceOf(Promise);
    expect(turnWhenDue()).toBe(turn);
    expect(timerFired).toBe(false);
    await turn;
    // setImmediate's turn comes before the timers when the stretch began in the poll phase, after them otherwise.
    busy(SLICE_MS + 2);
    await turnWhenDue();
    expect(timerFired).toBe(true);
  });
});
