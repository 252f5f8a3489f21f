/**
 * Issue 35: what the real runner function spends per sample, as Lambda runs it — the figures
 * sim-model.ts PROFILES bills a simulated runner for. The requests are the simulation's own:
 * a simulated run (./simulate.ts) of the language's answers (sim/rocode-generator.ts programs,
 * OK/WA/RE/TLE in the sim's mix, 5 tests each at RoCode's limits), each runner request recorded
 * as its judge sent it (single or batch: several samples of one task, runner-handoff.ts
 * combineHandoffs). They are then served, in a fresh child process, by the runner's own handler
 * code (functions/runner/serve.ts serveInvocation over functions/execute/container-sandbox.ts,
 * as functions/runner/main.ts does) at the isolation Lambda gives it: no namespaces
 * (POLYEVAL_BWRAP=none: the rlimits level), seccomp and Landlock where the kernel has them, the
 * Python zygote on (runtime-context.ts programServiceConfines), a non-root harness whose
 * programs share its uid — so each sample's syntax check runs as a one-shot sandboxed
 * interpreter and the compile cache is emptied after every item (container-sandbox.ts
 * afterItem), as in Lambda. The child runs as a uid of its own (MEASURE_UID), so its after-item
 * check counts only its own processes as survivors, and with a /tmp of its own.
 *
 * Per sample it records wall time and CPU time (utime + stime of the child and everything it
 * started, /proc/<pid>/stat, proc(5)) of the syntax check, of each test (TLE tests apart), of
 * the after-item check, and of the whole invocation.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Preparation, ProgramHost } from '#core/judging/index.ts';
import { descendantsCpuMs } from '../measure-run.ts';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
/** The measuring child's uid when started by root: one no other process here uses (the sandbox's 65534 is shared). */
export const MEASURE_UID = 64_123;
const TICK_MS = 10; // USER_HZ 100

/** CPU ms of this process (all threads) and of every process it started, live or reaped. */
export function treeCpuMs(): number {
  const self = process.cpuUsage();
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (self.user + self.system) / 1000 + (Number(f[13]) + Number(f[14])) * TICK_MS + descendantsCpuMs(process.pid);
}

/** One phase's wall and CPU time, ms. */
export interface Cost {
  wallMs: number;
  cpuMs: number;
}

/** One sample served: its kind (by its program), syntax check, tests and after-item check. */
export interface SampleCost {
  kind: string;
  check: Cost;
  tests: (Cost & { termination: string })[];
  afterItem: Cost;
}

export interface InvocationCost extends Cost {
  programs: number;
  discarded: number;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T } & Cost> {
  const cpu0 = treeCpuMs();
  const t0 = performance.now();
  const value = await work();
  return { value, wallMs: performance.now() - t0, cpuMs: treeCpuMs() - cpu0 };
}

/** In the child: serves each recorded request through the runner's handler code, timing every phase. */
async function serveInChild(
  payloads: string[],
  kindOf: (code: string) => string,
): Promise<{ samples: SampleCost[]; invocations: InvocationCost[]; isolation: string }> {
  const { ContainerSandbox } = await import('../../functions/execute/container-sandbox.ts');
  const { serveInvocation } = await import('../../functions/runner/serve.ts');
  const container = new ContainerSandbox({ discard: () => undefined });
  let current: SampleCost | undefined;
  const samples: SampleCost[] = [];
  const wrap = (host: ProgramHost): ProgramHost => ({
    prepareUnitTest: (source) => host.prepareUnitTest(source),
    async prepare(language, code, toolchain) {
      const out = await timed(() => host.prepare(language, code, toolchain));
      current = { kind: kindOf(code), check: { wallMs: out.wallMs, cpuMs: out.cpuMs }, tests: [], afterItem: { wallMs: 0, cpuMs: 0 } };
      const prep: Preparation = out.value;
      if (!prep.ok) return prep;
      const sample = current;
      const program = prep.program;
      return {
        ...prep,
        program: {
          ...program,
          run: async (request) => {
            const run = await timed(() => program.run(request));
            sample.tests.push({ wallMs: run.wallMs, cpuMs: run.cpuMs, termination: run.value.termination });
            return run.value;
          },
        },
      };
    },
  });
  const sandbox = {
    get: async () => {
      const executor = await container.get();
      return { host: wrap(executor.host), isolationReport: executor.isolationReport };
    },
    afterItem: async () => {
      const out = await timed(() => container.afterItem());
      if (current) {
        current.afterItem = { wallMs: out.wallMs, cpuMs: out.cpuMs };
        samples.push(current);
        current = undefined;
      }
      return out.value;
    },
  };
  // An environment's start (the executor's build, the zygote's first start) is the cold start's, not a sample's.
  const executor = await container.get();
  if (payloads[0] !== undefined) await serveInvocation(JSON.parse(payloads[0]) as unknown, sandbox);
  samples.length = 0;
  const invocations: InvocationCost[] = [];
  for (const payload of payloads) {
    const served = await timed(() => serveInvocation(JSON.parse(payload) as unknown, sandbox));
    const answers = 'response' in served.value && 'programs' in served.value.response ? served.value.response.programs : [served.value];
    const discarded = answers.filter((a) => 'errorType' in a || 'error' in a).length;
    invocations.push({ wallMs: served.wallMs, cpuMs: served.cpuMs, programs: answers.length, discarded });
  }
  const isolation = executor.isolationReport.label;
  await executor.close();
  return { samples, invocations, isolation };
}

/** The runner requests a simulated run of `items` answers in `language` sends (./simulate.ts), as its judges sent them. */
export async function recordRunnerRequests(language: 'python' | 'cpp', items: number): Promise<string[]> {
  const { runSimulation } = await import('./simulate.ts');
  const { observeRunnerRequests } = await import('./sim-model.ts');
  const payloads: string[] = [];
  const stop = observeRunnerRequests((p) => payloads.push(JSON.stringify((JSON.parse(p) as { request?: unknown }).request ?? JSON.parse(p))));
  try {
    const sim = await runSimulation({ items, language });
    if (sim.completed !== items) throw new Error(`the simulated run completed ${sim.completed} of ${items} items`);
  } finally {
    stop();
  }
  return payloads;
}

export interface RunnerCostMeasure {
  samples: SampleCost[];
  invocations: InvocationCost[];
  isolation: string;
  load: { before: number[]; after: number[] };
}

/**
 * Serves `payloads` in a fresh child process at the rlimits level (see the module comment); as
 * root, the child runs as MEASURE_UID. Every sample's costs, every invocation's, and the load
 * average before and after.
 */
export function measureRunnerCost(payloads: string[]): RunnerCostMeasure {
  const dir = mkdtempSync(join(tmpdir(), 'pe-runner-cost-'));
  const root = process.getuid?.() === 0;
  try {
    const tmp = join(dir, 'tmp');
    execFileSync('mkdir', ['-p', tmp]);
    writeFileSync(join(dir, 'requests.json'), JSON.stringify(payloads));
    chmodSync(dir, 0o755);
    if (root) chownSync(tmp, MEASURE_UID, MEASURE_UID);
    const before = loadavg();
    const text = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', join(dir, 'requests.json')], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: tmp, TMPDIR: tmp, POLYEVAL_BWRAP: 'none', NODE_ENV: 'production' },
      ...(root ? { uid: MEASURE_UID, gid: MEASURE_UID } : {}),
    });
    const out = JSON.parse(text.trim().split('\n').at(-1) ?? '{}') as Omit<RunnerCostMeasure, 'load'>;
    return { ...out, load: { before, after: loadavg() } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  // The handler's modules import text files as the bundles do (bench/support/text-imports.mjs).
  const { register } = await import('node:module');
  register('../../bench/support/text-imports.mjs', import.meta.url);
  const payloads = JSON.parse(readFileSync(process.argv[3] as string, 'utf8')) as string[];
  const { benchProgram } = await import('../rocode-generator.ts');
  const kinds = new Map<string, string>();
  for (const language of ['python', 'cpp'] as const)
    for (const kind of ['OK', 'WA', 'RE', 'TLE'] as const) kinds.set(benchProgram(language, kind).trim(), kind);
  const out = await serveInChild(payloads, (code) => kinds.get(code.trim()) ?? 'other');
  process.stdout.write(`\n${JSON.stringify(out)}\n`);
}
