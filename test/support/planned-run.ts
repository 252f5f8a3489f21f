/**
 * A planned local run for pipeline tests: ABRICOT items from in-memory rows, planned (as run
 * `run-1` unless told) into a fresh temporary store and ledger, and the RunContext over them. Each test adds
 * what it cares about (clock, cost hooks, event listener, a wrapped provider) as `context`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abricot } from '#core/benchmarks/abricot.ts';
import type { AnyBenchmark } from '#core/benchmarks/benchmark.ts';
import type { Provider } from '#core/models/provider.ts';
import type { RunContext } from '#core/run/engine.ts';
import { planRun, type LoadedBenchmark, type RunPlan } from '#core/run/plan.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { FileRunLedger, FsBlobStore } from '#local/index.ts';

/** ABRICOT rows as the benchmark `abricot:mem.jsonl` loads them. */
export function abricotFromRows(rows: readonly Record<string, unknown>[]): LoadedBenchmark {
  const tasks = rows.flatMap((row, i) => abricot.parseRow(row, { file: 'mem.jsonl', line: i + 1 }));
  return { benchmark: abricot as unknown as AnyBenchmark, tasks, spec: 'abricot:mem.jsonl', source: 'mem.jsonl', sha256: 'x'.repeat(64) };
}

export interface PlannedRun {
  store: FsBlobStore;
  ledger: FileRunLedger;
  plan: RunPlan;
  ctx: RunContext;
}

/**
 * Plans `data` with the run spec `{benchmark: 'abricot:mem.jsonl', model: provider.id, ...spec}`,
 * records the run as planned in the ledger, and returns the context a pipeline runs in (clock
 * 2026-01-01T00:00:01Z unless `context` says otherwise).
 */
export async function plannedRun(
  data: LoadedBenchmark,
  provider: Provider,
  spec: Record<string, unknown> = {},
  context: Partial<RunContext> = {},
  { prefix = 'run-', runId = 'run-1' }: { prefix?: string; runId?: string } = {},
): Promise<PlannedRun> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = new FsBlobStore(join(dir, 'store'));
  const ledger = new FileRunLedger(join(dir, 'ledger'));
  const plan = await planRun(data, parseRunSpec({ benchmark: 'abricot:mem.jsonl', model: provider.id, ...spec }), provider, {
    runId,
    createdAt: '2026-01-01T00:00:00.000Z',
    code: { version: 't', revision: null, dirty: null },
    packages: {},
    toolchains: [],
  });
  await ledger.createRun({
    runId,
    benchmark: 'abricot',
    model: provider.model,
    status: 'planned',
    items: plan.items.length,
    createdAt: '2026-01-01T00:00:00.000Z',
  });
  const ctx: RunContext = {
    store,
    ledger,
    provider,
    clock: () => new Date('2026-01-01T00:00:01.000Z'),
    manifest: plan.manifest,
    benchmark: data.benchmark,
    tasks: new Map(plan.tasks.map((t) => [t.id, t])),
    pool: data.tasks,
    stop: {},
    ...context,
  };
  return { store, ledger, plan, ctx };
}
