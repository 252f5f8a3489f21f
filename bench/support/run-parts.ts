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
import { aggregateRun } from '../../layers/core/report/aggregate.ts';
import { giveToSandbox } from '../../layers/sandbox/files.ts';
import { resolveIsolation } from '../../layers/sandbox/isolation.ts';
import { programServiceConfines } from '../../layers/sandbox/runtime-context.ts';
import { runSandboxed } from '../../layers/sandbox/sandbox-process.ts';
import { ensureSharedDir, ensureSupervisor } from '../../layers/sandbox/supervisor.ts';
import { childrenCpuS } from '../../sim/measure-run.ts';

/** Languages whose compiler runs as a sandboxed process per build (Kotlin compiles in its server, Python checks in its checker). */
const SANDBOXED_COMPILERS = new Set(['c', 'cpp', 'java']);

/** How this machine's sandbox starts programs and checks: what `itemTimes` counts as sandboxed processes. */
export interface SandboxShape {
  /** Python programs run in a zygote's children (forks, no sandboxed process of their own). */
  zygote: boolean;
  /** Python's syntax check is a sandboxed interpreter per source (the rlimits level), not the long-lived checker. */
  oneShotCheck: boolean;
}

export interface ItemTimes {
  compileMs: number[];
  runMs: number[];
  /** CPU of the programs' runs (the supervisor's rusage of each program: interpreter start included). */
  programCpuMs: number;
  /** Program runs. */
  runs: number;
  /** Runs a Python zygote's child served (a fork: no sandboxed process of its own). */
  zygoteRuns: number;
  /** Compilations that started a sandboxed compiler. */
  sandboxedCompiles: number;
}

/** Compile and run times of every item the run recorded. */
export function itemTimes(home: string, runId: string, shape: SandboxShape = { zygote: false, oneShotCheck: false }): ItemTimes {
  const out: ItemTimes = { compileMs: [], runMs: [], programCpuMs: 0, runs: 0, zygoteRuns: 0, sandboxedCompiles: 0 };
  const dir = join(home, 'store', 'runs', runId, 'items');
  for (const task of readdirSync(dir)) {
    for (const file of readdirSync(join(dir, task))) {
      const doc = JSON.parse(readFileSync(join(dir, task, file), 'utf8')) as {
        record: { language?: string };
        outcome: { compileMs?: number; runMs?: number; tests?: { cpuMs?: number }[] };
      };
      const { compileMs, runMs } = doc.outcome;
      for (const t of doc.outcome.tests ?? []) out.programCpuMs += t.cpuMs ?? 0;
      if (compileMs !== undefined) out.compileMs.push(compileMs);
      const python = doc.record.language === 'python';
      if (runMs !== undefined) {
        out.runMs.push(runMs);
        out.runs += 1;
        if (python && shape.zygote) out.zygoteRuns += 1;
      }
      if (compileMs !== undefined && (SANDBOXED_COMPILERS.has(doc.record.language ?? '') || (python && shape.oneShotCheck))) out.sandboxedCompiles += 1;
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

/** What one sandboxed process costs beyond a bare one: wall milliseconds (median) and CPU milliseconds (mean) of 20 each. */
export interface SandboxSetup {
  ms: number;
  cpuMs: number;
  shape: SandboxShape;
}

/** What a sandboxed `/bin/true` costs beyond a bare one: bubblewrap's namespaces and mounts, the supervisor, node's spawn. */
export async function sandboxSetup(cacheDir: string, workDir: string): Promise<SandboxSetup> {
  await ensureSharedDir(cacheDir);
  mkdirSync(workDir, { recursive: true });
  await giveToSandbox(workDir);
  const supervisor = await ensureSupervisor(cacheDir);
  const iso = await resolveIsolation('auto', { supervisor });
  const sandboxed: number[] = [];
  const bare: number[] = [];
  let sandboxedCpu = 0;
  let bareCpu = 0;
  // CPU: this process's own (node's spawn) plus its waited-for children's (bubblewrap, supervisor, /bin/true).
  const cpu = (): number => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6 + childrenCpuS();
  };
  for (let i = 0; i < 20; i++) {
    let c0 = cpu();
    let t0 = performance.now();
    await runSandboxed(iso, supervisor, { argv: ['/bin/true'], workDir, readOnly: [], stdin: '', limits: LIMITS });
    sandboxed.push(performance.now() - t0);
    sandboxedCpu += cpu() - c0;
    c0 = cpu();
    t0 = performance.now();
    spawnSync('/bin/true');
    bare.push(performance.now() - t0);
    bareCpu += cpu() - c0;
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  // As the run's own executor decides (runtime-context.ts, python.ts): the zygote where a program service confines, unless turned off.
  const shape: SandboxShape = {
    zygote: programServiceConfines(iso) && process.env['POLYEVAL_PYTHON_ZYGOTE'] !== '0',
    oneShotCheck: iso.level !== 'bwrap',
  };
  return { ms: median(sandboxed) - median(bare), cpuMs: ((sandboxedCpu - bareCpu) / 20) * 1000, shape };
}
