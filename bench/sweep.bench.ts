/**
 * Issue 13: a local sweep's grid-level throughput, its cells one after another (no
 * `--concurrency`) vs at the same time (`--concurrency N`), over the bundled suites (RoCode
 * in C, C++ and Python, Kotlin HumanEval, ABRICOT) with the `reference` model: items of the
 * whole grid per second of wall time. Each sweep starts cold (its own home and sandbox cache),
 * so neither reuses the other's compilations. `BENCH_SWEEP_CONCURRENCY=<n>` sets N (default 16).
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRow } from './index.ts';
import { loadNote, measureRun } from '../sim/measure-run.ts';

const GRID = ['-b', 'sample/rocode', '-b', 'sample/kotlin-humaneval', '-b', 'sample/abricot', '-m', 'reference'];

async function sweep(extra: string[]): Promise<{ items: number; wallS: number; note: string }> {
  const root = mkdtempSync(join(tmpdir(), 'polyeval-bench-sweep-'));
  chmodSync(root, 0o755); // sandboxed programs reach the cache inside it
  try {
    const r = await measureRun([...GRID, ...extra], { home: join(root, 'home'), tmp: root });
    const out = r.summary as unknown as { runs: { items: number; status: string }[] };
    if (out.runs.some((run) => run.status !== 'completed')) throw new Error(`a run did not complete: ${JSON.stringify(out.runs)}`);
    const items = out.runs.reduce((a, run) => a + run.items, 0);
    return { items, wallS: r.wallS, note: `${out.runs.length} runs, ${items} items in ${r.wallS.toFixed(1)} s · ${loadNote(r)}` };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function run(): Promise<BenchRow[]> {
  const n = Number(process.env.BENCH_SWEEP_CONCURRENCY ?? 16);
  const sequential = await sweep([]);
  const concurrent = await sweep(['--concurrency', String(n)]);
  return [
    { name: 'sweep, cells one after another', value: sequential.items / sequential.wallS, unit: 'items/s', note: sequential.note },
    { name: `sweep, --concurrency ${n}`, value: concurrent.items / concurrent.wallS, unit: 'items/s', note: concurrent.note },
    { name: 'sweep speed-up (concurrent / sequential)', value: sequential.wallS / concurrent.wallS, unit: '×' },
  ];
}
