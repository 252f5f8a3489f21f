/**
 * Issue 35: `npm run bench runner-cost [-- --language python|cpp] [--items 1000] [--invocations N]`:
 * the real runner function's cost per sample as Lambda runs it (sim/cloud/measure-runner-cost.ts:
 * the simulation's own runner requests, served by the runner's handler code at the rlimits level
 * with seccomp, Landlock where the kernel has it, and the Python zygote). One JSON line per phase
 * — the syntax check (or compile), a test, a TLE test, the after-item check, the rest of the
 * invocation per sample — with wall and CPU time (utime + stime of the runner and everything it
 * started), then a line setting what the simulated runner bills the same requests for
 * (sim-model.ts runRequest at one vCPU) beside what the real one spent: the profile it implies
 * (`compile_ms`: every per-sample cost but the tests; `test_ms`: a test that ends on its own).
 * The load average before and after is on every line: the machine may be shared, and wall time
 * then grows while CPU time does not.
 */
import { parseArgs } from 'node:util';
import { measureRunnerCost, recordRunnerRequests, type Cost } from '../sim/cloud/measure-runner-cost.ts';
import { PROFILES, runRequest } from '../sim/cloud/sim-model.ts';

const LANGUAGES = ['python', 'cpp'] as const;

/** Mean and standard deviation of `xs`, rounded to 0.1. */
function stats(xs: number[]): { n: number; mean: number; sd: number } {
  const n = xs.length;
  const mean = n === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / n;
  const sd = n < 2 ? 0 : Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n, mean: r(mean), sd: r(sd) };
}

function line(phase: string, costs: Cost[], extra: Record<string, unknown>): Record<string, unknown> {
  const wall = stats(costs.map((c) => c.wallMs));
  const cpu = stats(costs.map((c) => c.cpuMs));
  return { bench: 'runner-cost', phase, n: wall.n, wall_ms: wall.mean, wall_ms_sd: wall.sd, cpu_ms: cpu.mean, cpu_ms_sd: cpu.sd, ...extra };
}

export async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { language: { type: 'string', default: 'python' }, items: { type: 'string', default: '1000' }, invocations: { type: 'string' } },
  });
  const language = values.language as (typeof LANGUAGES)[number];
  if (!LANGUAGES.includes(language)) throw new Error(`--language must be one of ${LANGUAGES.join(', ')}, got ${values.language}`);
  const items = Number(values.items);
  if (!Number.isInteger(items) || items < 10) throw new Error(`--items must be an integer of at least 10, got ${values.items}`);
  const cap = values.invocations === undefined ? Infinity : Number(values.invocations);
  if (!(cap >= 1)) throw new Error(`--invocations must be a positive integer, got ${values.invocations}`);

  const payloads = (await recordRunnerRequests(language, items)).slice(0, cap);
  const m = measureRunnerCost(payloads);
  const base = { language, isolation: m.isolation, load_before: m.load.before[0], load_after: m.load.after[0] };
  const tests = m.samples.flatMap((s) => s.tests);
  const ended = tests.filter((t) => t.termination !== 'time');
  const tle = tests.filter((t) => t.termination === 'time');
  const programs = m.invocations.reduce((a, i) => a + i.programs, 0);
  const phases = m.samples.reduce((a, s) => a + s.check.cpuMs + s.afterItem.cpuMs + s.tests.reduce((b, t) => b + t.cpuMs, 0), 0);
  const phasesWall = m.samples.reduce((a, s) => a + s.check.wallMs + s.afterItem.wallMs + s.tests.reduce((b, t) => b + t.wallMs, 0), 0);
  const total = { cpuMs: m.invocations.reduce((a, i) => a + i.cpuMs, 0), wallMs: m.invocations.reduce((a, i) => a + i.wallMs, 0) };
  const rest = { cpuMs: (total.cpuMs - phases) / programs, wallMs: (total.wallMs - phasesWall) / programs };
  const out = [
    line(
      'syntax-check',
      m.samples.map((s) => s.check),
      base,
    ),
    line('test', ended, base),
    line('tle-test', tle, base),
    line(
      'after-item',
      m.samples.map((s) => s.afterItem),
      base,
    ),
    {
      bench: 'runner-cost',
      phase: 'invocation-rest-per-sample',
      n: programs,
      wall_ms: Math.round(rest.wallMs * 10) / 10,
      cpu_ms: Math.round(rest.cpuMs * 10) / 10,
      ...base,
    },
  ];
  for (const l of out) process.stdout.write(`${JSON.stringify(l)}\n`);
  // Per sample, everything but its tests (what PROFILES' compileMs stands for), and the same requests as the simulated runner bills them.
  const perSample = (pick: (c: Cost) => number) => m.samples.reduce((a, s) => a + pick(s.check) + pick(s.afterItem), 0) / m.samples.length + pick(rest);
  let seed = 1;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const simMs = payloads.reduce((a, p) => a + runRequest(p, random).durationMs, 0);
  process.stdout.write(
    `${JSON.stringify({
      bench: 'runner-cost',
      phase: 'per-sample',
      samples: m.samples.length,
      invocations: m.invocations.length,
      discarded: m.invocations.reduce((a, i) => a + i.discarded, 0),
      compile_ms_cpu: Math.round(perSample((c) => c.cpuMs)),
      compile_ms_wall: Math.round(perSample((c) => c.wallMs)),
      test_ms_cpu: stats(ended.map((t) => t.cpuMs)).mean,
      test_ms_wall: stats(ended.map((t) => t.wallMs)).mean,
      measured_cpu_ms_per_sample: Math.round(total.cpuMs / programs),
      measured_wall_ms_per_sample: Math.round(total.wallMs / programs),
      sim_billed_ms_per_sample: Math.round(simMs / programs),
      profile: PROFILES[language],
      ...base,
    })}\n`,
  );
}
