/**
 * Runs one whole `polyeval run` (the built CLI, as a user does) and measures it: wall time,
 * CPU time of the run and everything it started, the machine's CPU utilisation meanwhile,
 * the harness's own peak RSS as records accumulate, and the load average around it (the
 * machine may be shared: every figure is reported beside its load).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'polyeval.mjs');
const TICK = 100; // USER_HZ on Linux

/** CPU seconds of this process's waited-for children (/proc/self/stat cutime + cstime). */
export function childrenCpuS(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[13]) + Number(fields[14])) / TICK;
}

/** utime + stime + cutime + cstime of `pid`, ms (proc(5) /proc/<pid>/stat fields 14–17); 0 once it is gone. */
function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * (1000 / TICK);
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`))
      out.push(...readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    // gone
  }
  return out;
}

/**
 * CPU ms of `pid`'s live descendants and of those they reaped (`pid` itself not included). A
 * process that ends without waiting for its children (a CLI that exits while its sandboxed
 * services are still being torn down) never adds their CPU to its own cutime: read live, it counts.
 */
export function descendantsCpuMs(pid: number): number {
  let ms = 0;
  const stack = childrenOf(pid);
  for (let p = stack.pop(); p !== undefined; p = stack.pop()) {
    ms += procCpuMs(p);
    stack.push(...childrenOf(p));
  }
  return ms;
}

/** Busy and total jiffies of the whole machine (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.split(/\s+/).slice(1).map(Number) ?? [];
  const total = cpu.reduce((a, b) => a + b, 0);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  return { busy: total - idle, total };
}

function peakRssKb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/u.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

function countItems(home: string): number {
  let n = 0;
  try {
    for (const run of readdirSync(join(home, 'store', 'runs'))) {
      const dir = join(home, 'store', 'runs', run, 'items');
      for (const task of readdirSync(dir)) n += readdirSync(join(dir, task)).length;
    }
  } catch {
    // not planned yet
  }
  return n;
}

export interface MeasuredRun {
  wallS: number;
  cpuS: number;
  /** The machine's busy share over the run (all processes, other users' included). */
  machineUtil: number;
  /** This run's CPU over (wall × cores). */
  runUtil: number;
  loadBefore: number;
  loadAfter: number;
  /** Harness peak RSS (VmHWM, kB) when the recorded items first reached each threshold. */
  rssAt: Map<number, number>;
  summary: { verdicts: Record<string, number>; items: number; run_id: string };
  /** CPU seconds of polyeval's own node process (start, plan, records, journal, spawning, aggregation), and of npx's when run through it. */
  ownCpuS: number;
  npxCpuS: number;
  stderr: string;
}

/**
 * Runs `polyeval run <args> --json -q --home <home>` with TMPDIR=<tmp> (its sandbox cache):
 * the built CLI under node, or with `viaNpx` the whole command as a user types it (`npx polyeval`).
 */
export async function measureRun(args: string[], opts: { home: string; tmp: string; rssThresholds?: number[]; viaNpx?: boolean }): Promise<MeasuredRun> {
  const thresholds = [...(opts.rssThresholds ?? [])].sort((a, b) => a - b);
  const rssAt = new Map<number, number>();
  const loadBefore = loadavg()[0] ?? 0;
  const cpu0 = childrenCpuS();
  const m0 = machineTicks();
  const t0 = performance.now();
  const command = opts.viaNpx ? ['npx', '--no-install', 'polyeval'] : [process.execPath, CLI];
  // Every node process of the command reports its own CPU on exit (support/cpu-report.mjs).
  const reportDir = mkdtempSync(join(tmpdir(), 'pe-cpu-'));
  const cpuFile = join(reportDir, 'cpu.jsonl');
  const nodeOptions = [process.env['NODE_OPTIONS'], `--import=${join(ROOT, 'bench', 'support', 'cpu-report.mjs')}`].filter(Boolean).join(' ');
  const child = spawn(command[0] as string, [...command.slice(1), 'run', ...args, '--json', '-q', '--home', opts.home], {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: opts.tmp, NO_COLOR: '1', NODE_OPTIONS: nodeOptions, POLYEVAL_BENCH_CPU_FILE: cpuFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let last: { rss: number; items: number } | undefined;
  // The command's CPU as last seen live (it and every process under it): its services' CPU is
  // lost from cutime when it exits before they are reaped (the Python zygotes' children).
  let liveCpuMs = 0;
  const cpuPoll = setInterval(() => {
    if (child.pid !== undefined) liveCpuMs = Math.max(liveCpuMs, procCpuMs(child.pid) + descendantsCpuMs(child.pid));
  }, 250);
  const poll = setInterval(() => {
    if (thresholds.length === 0 || child.pid === undefined) return;
    const rss = peakRssKb(child.pid);
    if (rss === undefined) return;
    const items = countItems(opts.home);
    last = { rss, items };
    for (const t of thresholds) if (items >= t && !rssAt.has(t)) rssAt.set(t, rss);
  }, 500);
  const code = await new Promise<number | null>((res) => child.on('close', res));
  clearInterval(poll);
  clearInterval(cpuPoll);
  // The last items may land between the last poll and the exit: the last peak seen stands for them.
  for (const t of thresholds) if (!rssAt.has(t) && last) rssAt.set(t, last.rss);
  const wallS = (performance.now() - t0) / 1000;
  const cpuS = Math.max(childrenCpuS() - cpu0, liveCpuMs / 1000);
  const m1 = machineTicks();
  const processes = existsSync(cpuFile)
    ? readFileSync(cpuFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { argv: string[]; cpuS: number })
    : [];
  rmSync(reportDir, { recursive: true, force: true });
  if (code !== 0) throw new Error(`polyeval run exited ${code}: ${stderr.slice(-2000)}`);
  const summary = JSON.parse(stdout) as MeasuredRun['summary'];
  const own = processes.filter((p) => p.argv.some((a) => a.endsWith('polyeval.mjs') || a.endsWith('/.bin/polyeval')));
  return {
    ownCpuS: own.reduce((a, p) => a + p.cpuS, 0),
    npxCpuS: processes.filter((p) => !own.includes(p)).reduce((a, p) => a + p.cpuS, 0),
    wallS,
    cpuS,
    machineUtil: (m1.busy - m0.busy) / Math.max(1, m1.total - m0.total),
    runUtil: cpuS / (wallS * availableParallelism()),
    loadBefore,
    loadAfter: loadavg()[0] ?? 0,
    rssAt,
    summary,
    stderr,
  };
}

/** "load 3.1→4.0 on 2 cores" */
export function loadNote(r: Pick<MeasuredRun, 'loadBefore' | 'loadAfter'>): string {
  return `load ${r.loadBefore.toFixed(1)}→${r.loadAfter.toFixed(1)} on ${availableParallelism()} cores`;
}
