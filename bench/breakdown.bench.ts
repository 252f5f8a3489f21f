/**
 * Issue 23: where a whole `npx polyeval run -b mxeval:<problems> -m replay:<samples>` spends
 * its time on each fidelity set (Kotlin, C++, Python; ../shared/fidelity), against MXEval
 * timed on the same problems and answers in this bench run (`--mxeval <dir>`, MXEVAL_DIR or
 * `../mxeval`: an MXEval checkout, support/mxeval-time.ts; without one no ratio is printed,
 * never one against a time recorded elsewhere). With a checkout, MXEval's own 974 published
 * MBPP samples (`mbpp-published`) run too, read from the checkout.
 * and against the floor — the same samples' bare toolchain work measured in this bench run
 * (support/floor.ts). MXEval runs once per set, before polyeval's rounds. Every set runs
 * `BENCH_ROUNDS` times (default 2) with an empty compile cache (the machine-wide pieces —
 * supervisor, precompiled headers, compile server build — exist, as after a first run).
 *
 * Rows per set and round: the whole command's ratio to MXEval with the floor's beside it;
 * the same run as `node dist/polyeval.mjs run …` (no npx; its own empty compile cache, right
 * after the npx run), so npx's share of the whole command shows;
 * CLI start (`--help`) and start + load + plan (`--dry-run`); per-sample compile/check and
 * run (medians, and their sums over the jobs: the wall share); sandbox set-up per process
 * (a sandboxed `/bin/true` minus a bare one, times the sandboxed processes the run started: a
 * Python program a zygote serves is a fork of it, not one; the zygotes themselves are); the
 * aggregation (records Parquet, metrics, report: re-run in process on the finished run);
 * and the rest (item records, journal, queueing, waiting for the Kotlin server). The same
 * split in CPU seconds, which a loaded machine stretches far less than the wall: polyeval's
 * own node process and npx's (support/cpu-report.mjs reports each on exit), the programs'
 * runs (the supervisor's rusage), sandbox set-up (processes × a sandboxed /bin/true's CPU),
 * and the other children (compilers, the Python checker, the compile server) — each beside
 * its floor. Every row carries the load average: the machine may be shared.
 *
 * The floor is the issue's definition: one bare toolchain start plus the program per sample
 * (Python: `python3 -I -B main.py`, for every sample, those that do not parse included, as
 * MXEval `exec`s them too), `cores` at a time, in this bench run. Compare it with MXEval timed
 * in the same run: on a loaded machine the floor stretches, and a recorded figure would not. `floor vs MXEval (CPU, same run)` divides the two
 * CPU totals, which the load hardly changes; on an idle machine the floor's wall approaches its
 * CPU ÷ cores. The issue's "near 10×" assumed an interpreter start of ~20 ms; on our
 * paravirtualised 2-core machines one costs 50–75 CPU-ms (~820 page faults, each a trip to the
 * hypervisor), which the Python floor row prints beside the floor. The C++ floor row also says
 * whether the target lies beyond the floor and why (support/floor.ts cppFloorReason: the floor's
 * CPU ÷ cores and its longest sample bound every schedule; the run's own command on an empty
 * `#include <bits/stdc++.h>` program is the part of each compile no flag removes), and a row puts
 * MXEval's own compile command (`g++ <name>.cpp`, no precompiled header) beside that share. `npm run bench breakdown`;
 * BENCH_FIDELITY_SETS=mbpp limits the sets: `npm run bench breakdown -- --mxeval ../mxeval`.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRow } from './index.ts';
import { cppFloor, cppFloorReason, kotlinFloor, pythonFloor, type Floor } from '../sim/floor.ts';
import { freshTmp, kotlinArchiveFor, seedMachineWide } from './support/fidelity-tmp.ts';
import { childrenCpuS, loadNote, measureRun, ROOT, type MeasuredRun } from '../sim/measure-run.ts';
import { fidelitySet, mxevalDir, mxevalNote, mxevalTime, NOT_TIMED, publishedSet, type PeerSet } from './support/mxeval-time.ts';
import { aggregateAgain, itemTimes, sandboxSetup } from './support/run-parts.ts';

const SETS = [
  { set: 'mbkp', language: 'Kotlin', target: 20, floor: kotlinFloor },
  { set: 'mbcpp', language: 'C++', target: 5, floor: cppFloor },
  { set: 'mbpp', language: 'Python', target: 1, floor: pythonFloor },
  { set: 'mbpp-published', language: 'Python (974 published)', target: 2, floor: pythonFloor },
] as const;

/** The set's files: the fidelity sets from ../shared/fidelity, MXEval's published samples from its checkout. */
function peerSet(set: (typeof SETS)[number]['set'], checkout: string | undefined): PeerSet | undefined {
  if (set !== 'mbpp-published') return fidelitySet(set);
  const published = checkout ? publishedSet(checkout, 'mbpp') : undefined;
  return published && { name: set, ...published };
}

const CLI = join(ROOT, 'dist', 'polyeval.mjs');
const s = (x: number): string => `${x.toFixed(2)} s`;
const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0
    ? Number.NaN
    : ((sorted[Math.floor((sorted.length - 1) / 2)] as number) + (sorted[Math.ceil((sorted.length - 1) / 2)] as number)) / 2;
};
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
const msText = (x: number): string => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : 'none');

/** Wall seconds of `node <args>` (median of three) and its CPU seconds (mean). */
function nodeSeconds(args: string[]): { wallS: number; cpuS: number } {
  const cpu0 = childrenCpuS();
  const times = [0, 1, 2].map(() => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(-500)}`);
    return (performance.now() - t0) / 1000;
  });
  return { wallS: median(times), cpuS: (childrenCpuS() - cpu0) / 3 };
}

/** Wall seconds of `node dist/polyeval.mjs <args>` (median of three). */
function cliSeconds(args: string[]): number {
  return nodeSeconds([CLI, ...args]).wallS;
}

/** Whether the run kept the cores busy: its own CPU over wall × cores, beside the whole machine's busy share (neighbours included). */
const busy = (r: MeasuredRun): string =>
  `the run kept ${(r.runUtil * 100).toFixed(0)}% of ${availableParallelism()} cores busy (the machine: ${(r.machineUtil * 100).toFixed(0)}%)`;

function load(): string {
  return `load ${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} cores`;
}

/** The run's kotlinc flags, from its manifest (its language version). */
function kotlincFlags(home: string, runId: string): string[] {
  const manifest = readFileSync(join(home, 'store', 'runs', runId, 'manifest.json'), 'utf8');
  const version = /"kotlin_language_version":\s*"([^"]+)"/u.exec(manifest)?.[1];
  return version ? ['-language-version', version, '-api-version', version] : [];
}

export async function run(): Promise<BenchRow[]> {
  const only = process.env['BENCH_FIDELITY_SETS']?.split(',');
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 2);
  const jobs = availableParallelism();
  const mxevalCheckout = mxevalDir();
  const root = mkdtempSync(join(tmpdir(), 'pe-breakdown-'));
  chmodSync(root, 0o755);
  const rows: BenchRow[] = [];
  try {
    const seed = await seedMachineWide(root, { kotlin: !only || only.includes('mbkp') });
    const startS = nodeSeconds([CLI, '--help']);
    const help = startS.wallS;
    const bareNode = nodeSeconds(['-e', '0']);
    rows.push({
      name: 'CLI start (polyeval --help)',
      value: help,
      unit: 's',
      note: `CPU ${s(startS.cpuS)}; floor: bare node ${s(bareNode.wallS)}, CPU ${s(bareNode.cpuS)}; ${load()}`,
    });
    const setup = await sandboxSetup(join(seed, 'polyeval-cache'), join(root, 'setup-work'));
    const setupMs = setup.ms;
    rows.push({
      name: 'sandbox set-up per process',
      value: setupMs,
      unit: 'ms',
      note: `a sandboxed /bin/true minus a bare one (bubblewrap, supervisor, node's spawn); CPU ${setup.cpuMs.toFixed(1)} ms; floor 0; ${load()}`,
    });
    for (const { set, language, target, floor } of SETS) {
      if (only && !only.includes(set)) continue;
      const files = peerSet(set, mxevalCheckout);
      if (!files) continue; // the published samples come with an MXEval checkout only
      const args = ['-b', `mxeval:${files.problems}`, '-m', `replay:${files.samples}`];
      const plan = cliSeconds(['run', ...args, '--dry-run', '--home', join(root, `plan-${set}`)]);
      // MXEval on the same problems and answers, on this machine, in this run; without it, no ratio.
      const mx = await mxevalTime(mxevalCheckout, files, root);
      if (mx) rows.push({ name: `${language} MXEval (this run)`, value: mx.wallS, unit: 's', note: `${mxevalNote(mx)}; ${load()}` });
      else rows.push({ name: `${language} MXEval`, value: Number.NaN, unit: 's', note: NOT_TIMED });
      for (let round = 1; round <= rounds; round++) {
        const tag = `${language} #${round}`;
        const tmp = freshTmp(root, `${set}-${round}`, seed);
        await kotlinArchiveFor(tmp);
        const home = join(root, `home-${set}-${round}`);
        const r: MeasuredRun = await measureRun(args, { home, tmp, viaNpx: true });
        // The same run without npx (`node dist/polyeval.mjs run …`, its own empty compile cache and
        // home), right after it: the difference is what npx itself adds to the command.
        const nodeTmp = freshTmp(root, `${set}-${round}-node`, seed);
        await kotlinArchiveFor(nodeTmp);
        const direct: MeasuredRun = await measureRun(args, { home: join(root, `home-${set}-${round}-node`), tmp: nodeTmp });
        const items = itemTimes(home, r.summary.run_id, setup.shape);
        const aggregateS = await aggregateAgain(home, r.summary.run_id);
        // A Python run served by a zygote is a fork of it, not a sandboxed process: only the zygotes
        // themselves are (about one per job, replaced after 2,000 programs: python.ts).
        const zygotes = items.zygoteRuns > 0 ? jobs * Math.ceil(items.zygoteRuns / 2000) : 0;
        const processes = items.runs - items.zygoteRuns + items.sandboxedCompiles + zygotes;
        const processNote = `${processes} sandboxed processes (${items.runs - items.zygoteRuns} programs, ${items.sandboxedCompiles} compilers${zygotes ? `, about ${zygotes} zygotes; ${items.zygoteRuns} programs ran as forks of a zygote, counted in the programs' CPU` : ''})`;
        const f: Floor = await floor(join(tmp, 'polyeval-cache'), join(root, `floor-${set}-${round}`), jobs, kotlincFlags(home, r.summary.run_id));
        const compileWall = sum(items.compileMs) / 1000 / jobs;
        const runWall = sum(items.runMs) / 1000 / jobs;
        const setupWall = (processes * setupMs) / 1000 / jobs;
        const rest = r.wallS - plan - compileWall - runWall - setupWall - aggregateS;
        // CPU per part: what the run costs whatever the load (the wall parts above stretch with it).
        const programCpuS = items.programCpuMs / 1000;
        const setupCpuS = (processes * setup.cpuMs) / 1000;
        const otherChildrenCpuS = r.cpuS - r.ownCpuS - r.npxCpuS - programCpuS - setupCpuS;
        const fw = (x: number) => `${s(x)}${mx ? ` = ${(mx.wallS / x).toFixed(1)}x` : ''}`;
        const vsMxeval = mx
          ? [
              {
                name: `${tag} whole command vs MXEval`,
                value: mx.wallS / r.wallS,
                unit: 'x',
                note: `target ≥ ${target}; npx polyeval run ${s(r.wallS)} (cold compile cache) vs ${mxevalNote(mx)}; floor ${fw(f.wallS)}; ${r.summary.items} samples; CPU ${s(r.cpuS)}; ${busy(r)}; ${loadNote(r)}`,
              },
              {
                name: `${tag} floor vs MXEval`,
                value: mx.wallS / f.wallS,
                unit: 'x',
                // A Kotlin run pays its compile server's start too: the floor with it is what the whole command can approach.
                note: `bare toolchain, ${jobs} at a time: ${s(f.wallS)}${f.setupS ? ` (+ ${s(f.setupS)} compile server start, once: ${fw(f.wallS + f.setupS)} with it)` : ''}; polyeval is ${(r.wallS / f.wallS).toFixed(1)}x its floor; ${load()}${f.cpp ? `; ${cppFloorReason(f, mx, target, jobs)}` : ''}`,
              },
              // C++: MXEval's own compile command beside the floor's, per sample, in this run (the header parsed each time against the precompiled one).
              ...(f.cpp
                ? [
                    {
                      name: `${tag} MXEval's compile vs the floor's header share (CPU per sample)`,
                      value: f.cpp.peerCompileCpuMs / f.cpp.headerCpuMs,
                      unit: 'x',
                      note: `MXEval's g++ <name>.cpp ${f.cpp.peerCompileCpuMs.toFixed(0)} CPU-ms (${f.cpp.peerCompiles} samples) ÷ the run's command on an empty #include <bits/stdc++.h> program ${f.cpp.headerCpuMs.toFixed(0)} CPU-ms, the part of every compile no flag removes; ${load()}`,
                    },
                  ]
                : []),
              // The issue's floor, by CPU: MXEval's CPU and the floor's, measured in this bench run under the same load, so their ratio hardly depends on it.
              {
                name: `${tag} floor vs MXEval (CPU, same run)`,
                value: mx.cpuS / f.cpuS,
                unit: 'x',
                note: `MXEval CPU ${s(mx.cpuS)} ÷ floor CPU ${s(f.cpuS)} (${f.samples} programs, one bare toolchain start + the program each${f.startCpuMs === undefined ? '' : `; one bare interpreter start alone ${f.startCpuMs.toFixed(1)} CPU-ms, × ${f.samples} = ${s((f.startCpuMs * f.samples) / 1000)}`}); polyeval's whole command: MXEval CPU ÷ its CPU ${s(r.cpuS)} = ${(mx.cpuS / r.cpuS).toFixed(2)}x`,
              },
              // On a shared machine the wall time says more about the neighbours than about the run: CPU seconds ÷ cores is what an idle machine would approach.
              {
                name: `${tag} CPU ÷ cores vs MXEval`,
                value: mx.wallS / (r.cpuS / jobs),
                unit: 'x',
                note: `polyeval CPU ${s(r.cpuS)} ÷ ${jobs} = ${s(r.cpuS / jobs)}; MXEval CPU ${s(mx.cpuS)} (its CPU ÷ polyeval's: ${(mx.cpuS / r.cpuS).toFixed(1)}x); floor CPU ${s(f.cpuS)} ÷ ${jobs} = ${fw(f.cpuS / jobs)}; polyeval is ${(r.cpuS / f.cpuS).toFixed(1)}x its floor's CPU`,
              },
            ]
          : [
              // No MXEval in this run: polyeval's own figures only, never a ratio against a time from elsewhere.
              {
                name: `${tag} whole command`,
                value: r.wallS,
                unit: 's',
                note: `npx polyeval run (cold compile cache); ${NOT_TIMED}; floor ${s(f.wallS)}; ${r.summary.items} samples; CPU ${s(r.cpuS)}; ${loadNote(r)}`,
              },
              {
                name: `${tag} floor`,
                value: f.wallS,
                unit: 's',
                note: `bare toolchain, ${jobs} at a time; CPU ${s(f.cpuS)}; polyeval is ${(r.wallS / f.wallS).toFixed(1)}x its floor; ${load()}`,
              },
            ];
        rows.push(
          ...vsMxeval,
          {
            name: `${tag} whole command without npx (node dist/polyeval.mjs run)`,
            value: direct.wallS,
            unit: 's',
            note: `cold compile cache, right after npx polyeval run ${s(r.wallS)}: npx adds ${s(r.wallS - direct.wallS)} (npx's CPU there ${s(r.npxCpuS)}); ${mx ? `MXEval ${s(mx.wallS)} in this run ÷ it = ${(mx.wallS / direct.wallS).toFixed(2)}x` : NOT_TIMED}; CPU ${s(direct.cpuS)}; ${loadNote(direct)}`,
          },
          { name: `${tag} start + load + plan (--dry-run)`, value: plan, unit: 's', note: `of which CLI start ${s(help)}` },
          {
            name: `${tag} compile/check per sample (median)`,
            value: median(items.compileMs),
            unit: 'ms',
            note: `sum ${s(sum(items.compileMs) / 1000)}, ÷${jobs} jobs = ${s(compileWall)} of the wall; floor median ${msText(median(f.compileMs))}, sum ${s(sum(f.compileMs) / 1000)}`,
          },
          {
            name: `${tag} run per sample (median)`,
            value: median(items.runMs),
            unit: 'ms',
            note: `sum ${s(sum(items.runMs) / 1000)}, ÷${jobs} jobs = ${s(runWall)} of the wall; floor median ${msText(median(f.runMs))}, sum ${s(sum(f.runMs) / 1000)}`,
          },
          {
            name: `${tag} sandbox set-up (in compile + run)`,
            value: setupWall,
            unit: 's',
            note: `${processNote} × ${setupMs.toFixed(0)} ms ÷ ${jobs} jobs`,
          },
          { name: `${tag} aggregate (Parquet, metrics, report)`, value: aggregateS, unit: 's', note: 're-run in process on the finished run' },
          {
            name: `${tag} rest`,
            value: rest,
            unit: 's',
            note: 'whole − plan − compile − run − sandbox set-up − aggregate: item records, journal, queueing, spawning, compile-server start (on a loaded machine mostly waiting for a core)',
          },
          {
            name: `${tag} CPU: polyeval's own process`,
            value: r.ownCpuS,
            unit: 's',
            note: `start, plan, records, journal, queueing, spawning, aggregation; floor: bare node start CPU ${s(bareNode.cpuS)} (polyeval --help: ${s(startS.cpuS)}); npx around it ${s(r.npxCpuS)}`,
          },
          {
            name: `${tag} CPU: programs' runs`,
            value: programCpuS,
            unit: 's',
            note: `the supervisor's rusage of each program (${items.runs} runs); floor CPU ${s(f.cpuS)} (bare toolchain${f.compileMs.length > 0 ? ', compilations included' : ''})`,
          },
          {
            name: `${tag} CPU: sandbox set-up`,
            value: setupCpuS,
            unit: 's',
            note: `${processNote} × ${setup.cpuMs.toFixed(1)} ms; floor 0`,
          },
          {
            name: `${tag} CPU: compile/check and other children`,
            value: otherChildrenCpuS,
            unit: 's',
            note: "whole CPU − polyeval − npx − programs − sandbox set-up: compilers, the Python checker, the Python zygotes' own work (a fork, the wait and the clean-up per program), the Kotlin compile server, toolchain probes",
          },
        );
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}
