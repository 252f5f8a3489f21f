/**
 * Parts of a finished run's time, for the breakdown bench: its items' compile and run
 * times (from the records it wrote), the aggregation re-run in process on its store, and
 * what one sandboxed process costs to set up on this machine.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openHome } from '../../layers/app/local/home.ts';
import { readManifest } from '../../layers/core/run/manifest-store.ts';
import { aggregateRun } from '../../layers/core/run/aggregate.ts';
import { giveToSandbox } from '../../layers/sandbox/files.ts';
import { resolveIsolation } from '../../layers/sandbox/isolation.ts';
import { runSandboxed } from '../../layers/sandbox/sandbox-process.ts';
import { ensureSharedDir, ensureSupervisor } from '../../layers/sandbox/supervisor.ts';

/** Languages whose compiler runs as a sandboxed process per build (Kotlin compiles in its server, Python checks in its checker). */
const SANDBOXED_COMPILERS = new Set(['c', 'cpp', 'java']);

export interface ItemTimes {
  compileMs: number[];
  runMs: number[];
  /** Program runs (one sandboxed process each). */
  runs: number;
  /** Compilations that started a sandboxed compiler. */
  sandboxedCompiles: number;
}

/** Compile and run times of every item the run recorded. */
export function itemTimes(home: string, runId: string): ItemTimes {
  const out: ItemTimes = { compileMs: [], runMs: [], runs: 0, sandboxedCompiles: 0 };
  const dir = join(home, 'store', 'runs', runId, 'items');
  for (const task of readdirSync(dir)) {
    for (const file of readdirSync(join(dir, task))) {
      const doc = JSON.parse(readFileSync(join(dir, task, file), 'utf8')) as { record: { language?: string }; outcome: { compileMs?: number; runMs?: number } };
      const { compileMs, runMs } = doc.outcome;
      if (compileMs !== undefined) out.compileMs.push(compileMs);
      if (runMs !== undefined) {
        out.runMs.push(runMs);
        out.runs += 1;
      }
      if (compileMs !== undefined && SANDBOXED_COMPILERS.has(doc.record.language ?? '')) out.sandboxedCompiles += 1;
    }
  }
  return out;
}

/** Seconds the aggregation (records Parquet, metrics, report, summary) takes, re-run on the finished run. */
export async function aggregateAgain(homeDir: string, runId: string): Promise<number> {
  const home = openHome(homeDir);
  const manifest = await readManifest(home.store, runId);
  if (!manifest) throw new Error(`no manifest for ${runId}`);
  const t0 = performance.now();
  await aggregateRun({ store: home.store, ledger: home.ledger, clock: () => new Date() }, manifest);
  return (performance.now() - t0) / 1000;
}

const LIMITS = { cpuMs: 2000, wallMs: 10_000, addressSpaceMb: 256, fileSizeMb: 1, processes: 4, openFiles: 32, outputBytes: 1024, tmpMb: 1 };

/** Milliseconds a sandboxed `/bin/true` takes beyond a bare one (median of 20 each). */
export async function sandboxSetupMs(cacheDir: string, workDir: string): Promise<number> {
  await ensureSharedDir(cacheDir);
  mkdirSync(workDir, { recursive: true });
  await giveToSandbox(workDir);
  const supervisor = await ensureSupervisor(cacheDir);
  const iso = await resolveIsolation('auto', { supervisor });
  const sandboxed: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < 20; i++) {
    let t0 = performance.now();
    await runSandboxed(iso, supervisor, { argv: ['/bin/true'], workDir, readOnly: [], stdin: '', limits: LIMITS });
    sandboxed.push(performance.now() - t0);
    t0 = performance.now();
    spawnSync('/bin/true');
    bare.push(performance.now() - t0);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  return median(sandboxed) - median(bare);
}
