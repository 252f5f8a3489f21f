/**
 * What the cells of a concurrent sweep share: one bound on items in flight across the grid,
 * one call limit per model, and one sandbox executor (toolchain options travel with each job).
 */
import { describe, expect, it } from 'vitest';
import type { Provider } from '#core/models/provider.ts';
import type { GeneratedItem } from '#core/run/engine.ts';
import { runPipeline } from '#core/run/pipeline.ts';
import { type WorkItem } from '#core/run/plan.ts';
import { InProcessWorkQueue } from '#local/index.ts';
import type { SandboxExecutor } from '#sandbox/index.ts';
import { GridGate } from '#app/local/grid-gate.ts';
import { ModelLimits } from '#app/local/model-limits.ts';
import { SharedSandbox } from '#app/local/shared-sandbox.ts';
import { abricotFromRows, plannedRun } from '../../support/planned-run.ts';

const tick = (ms = 2): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A model answering "3" after a short wait, counting its calls in flight. */
function slowModel(spec: string, counter: { now: number; max: number }): Provider {
  return {
    id: spec,
    kind: 'fake',
    model: spec,
    async generate() {
      counter.now += 1;
      counter.max = Math.max(counter.max, counter.now);
      await tick();
      counter.now -= 1;
      return { text: '3', usage: { promptTokens: 1, completionTokens: 1 }, latencyMs: 2, attempts: 1 };
    },
  };
}

const rows = Array.from({ length: 10 }, (_, i) => ({
  id: `r${i}`,
  target_token: 'mare',
  text: `Il mare numero ${i}.`,
  abs_mean: i / 10,
  inc_mean: (9 - i) / 10,
}));

/** One run of 20 ABRICOT items (digit-parse, so `generate` is the model call) in its own store. */
async function run(provider: Provider, inFlight: { now: number; max: number }) {
  const { ctx, plan } = await plannedRun(
    abricotFromRows(rows),
    provider,
    { likertMode: 'digit-parse' },
    {
      provider: { ...provider, generate: async (req) => ((inFlight.now += 1), (inFlight.max = Math.max(inFlight.max, inFlight.now)), provider.generate(req)) },
      onEvent: () => void (inFlight.now -= 1),
    },
    { prefix: 'sweep-sharing-' },
  );
  return { ctx, plan };
}

const queues = (gate?: GridGate) => ({
  generateQueue: new InProcessWorkQueue<WorkItem>({ maxAttempts: 1 }),
  scoreQueue: new InProcessWorkQueue<GeneratedItem>({ maxAttempts: 1, capacity: 8 }),
  generateConcurrency: 4,
  scoreConcurrency: 2,
  ...(gate ? { gate } : {}),
});

describe('a concurrent sweep', () => {
  it('holds at most --concurrency items between model call and record across all its runs', async () => {
    const items = { now: 0, max: 0 };
    const gate = new GridGate(3);
    const runs = await Promise.all([run(slowModel('fake:a', { now: 0, max: 0 }), items), run(slowModel('fake:b', { now: 0, max: 0 }), items)]);
    const results = await Promise.all(runs.map(({ ctx, plan }) => runPipeline(ctx, plan.items, queues(gate))));
    expect(results.map((r) => r.recorded)).toEqual([20, 20]);
    expect(items.max).toBe(3);
    expect(gate.active).toBe(0);
    expect(gate.idle).toBe(true);
  });

  it('lets each run use its own bounds without a grid bound (what the gate takes away)', async () => {
    const items = { now: 0, max: 0 };
    const runs = await Promise.all([run(slowModel('fake:a', { now: 0, max: 0 }), items), run(slowModel('fake:b', { now: 0, max: 0 }), items)]);
    await Promise.all(runs.map(({ ctx, plan }) => runPipeline(ctx, plan.items, queues())));
    expect(items.max).toBeGreaterThan(3);
  });

  it('limits one model across every run that calls it, and each model on its own', async () => {
    const limits = new ModelLimits();
    const endpoint = { now: 0, max: 0 };
    const other = { now: 0, max: 0 };
    const a1 = limits.wrap('openai:http://host/v1#m', slowModel('openai:http://host/v1#m', endpoint), 2);
    const a2 = limits.wrap('openai:http://host/v1#m', slowModel('openai:http://host/v1#m', endpoint), 2);
    const b = limits.wrap('openai:http://other/v1#m', slowModel('openai:http://other/v1#m', other), 3);
    const req = { taskId: 't', sample: 0, prompt: { messages: [], style: 'chat' as const }, params: { temperature: 0, topP: 1, maxTokens: 1, stop: [] } };
    await Promise.all(Array.from({ length: 12 }, (_, i) => [a1, a2, b][i % 3]?.generate(req)));
    expect(endpoint.max).toBe(2);
    expect(other.max).toBe(3);
    expect(a1.model).toBe('openai:http://host/v1#m');
  });
});

/** An executor that only knows whether it was closed (the sandbox's own tests cover the rest). */
function fakeFactory(log: string[]) {
  let n = 0;
  return async (): Promise<SandboxExecutor> => {
    const id = `executor-${++n}`;
    log.push(`start ${id}`);
    return { close: async () => void log.push(`close ${id}`) } as unknown as SandboxExecutor;
  };
}

// That cells with different Kotlin language versions each compile with their own version on
// this one executor, at the same time, is test/sandbox/toolchain-options.test.ts (real kotlinc).
describe('the shared sandbox', () => {
  it('starts one executor for every cell, whatever their Kotlin versions, and closes it once at the end', async () => {
    const log: string[] = [];
    const sandbox = new SharedSandbox(fakeFactory(log));
    const [a, b, c] = await Promise.all([sandbox.get(), sandbox.get(), sandbox.get()]);
    expect(a).toBe(b);
    expect(b).toBe(c);
    expect(await sandbox.get()).toBe(a);
    expect(log).toEqual(['start executor-1']);
    await sandbox.close();
    expect(log).toEqual(['start executor-1', 'close executor-1']);
  });

  it('starts again after a failed start instead of handing every later cell the failure', async () => {
    let calls = 0;
    const sandbox = new SharedSandbox(async () => {
      calls += 1;
      if (calls === 1) throw new Error('no sandbox');
      return { close: async () => undefined } as unknown as SandboxExecutor;
    });
    await expect(sandbox.get()).rejects.toThrow('no sandbox');
    await expect(sandbox.get()).resolves.toBeDefined();
    expect(calls).toBe(2);
    await sandbox.close();
  });
});
