/**
 * Issue 12: every core busy on an execution-bound run. 2,000 RoCode-style items (Python and
 * C++, 5 tests each, OK/WA/TLE/RE answers from sim/rocode-generator.ts) in one
 * whole `polyeval run`: items/s, the machine's CPU utilisation (target ≥ 90 %), the
 * harness's own peak RSS at 500, 1,000 and 2,000 items (flat), and the CPU the harness and
 * sandbox add per test beside the CPU of the programs themselves (what a bare run costs).
 * `BENCH_ROCODE_ITEMS=<n>` runs a smaller set on a slow or shared machine;
 * `BENCH_ROCODE_LANGUAGES=python` (or `cpp`) judges one language's answers only, in the same
 * verdict mix (default: both, half each) — the local rate sim/cloud/cost-line.ts prices one
 * language's simulated run against.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CPP_FLAGS } from '#sandbox/languages/cpp.ts';
import { ensurePch } from '#sandbox/languages/pch.ts';
import type { BenchRow } from './index.ts';
import { benchProgram, BENCH_LANGUAGES, generateRocodeBench, parseBenchLanguages } from '../sim/rocode-generator.ts';
import { childrenCpuS, loadNote, measureRun } from '../sim/measure-run.ts';

interface ItemFile {
  outcome: { verdict: string; tests?: { cpuMs?: number; verdict: string }[] };
}

/** Sum of the programs' own CPU time over every test the run recorded. */
function programCpuS(home: string): { cpuS: number; tests: number } {
  let cpuMs = 0;
  let tests = 0;
  const runs = join(home, 'store', 'runs');
  for (const run of readdirSync(runs)) {
    const items = join(runs, run, 'items');
    for (const task of readdirSync(items)) {
      for (const file of readdirSync(join(items, task))) {
        const item = JSON.parse(readFileSync(join(items, task, file), 'utf8')) as ItemFile;
        for (const t of item.outcome.tests ?? []) {
          cpuMs += t.cpuMs ?? 0;
          tests += 1;
        }
      }
    }
  }
  return { cpuS: cpuMs / 1000, tests };
}

/** CPU per test of the same programs run bare (no sandbox, no harness): the OK answers on their tests. */
function bareCpuPerTestMs(root: string, tests: { input: string }[]): { python: number; cpp: number } {
  const py = join(root, 'bare.py');
  writeFileSync(py, benchProgram('python', 'OK'));
  const cpp = join(root, 'bare-cpp');
  writeFileSync(`${cpp}.cpp`, benchProgram('cpp', 'OK'));
  spawnSync('g++', ['-O2', '-std=gnu++17', '-o', cpp, `${cpp}.cpp`]);
  const measure = (argv: string[]): number => {
    const c0 = childrenCpuS();
    for (const t of tests) spawnSync(argv[0] as string, argv.slice(1), { input: t.input });
    return ((childrenCpuS() - c0) * 1000) / tests.length;
  };
  return { python: measure(['/usr/bin/python3', '-I', '-B', py]), cpp: measure([cpp]) };
}

export async function run(): Promise<BenchRow[]> {
  const items = Number(process.env['BENCH_ROCODE_ITEMS'] ?? 2000);
  const languages = parseBenchLanguages(process.env['BENCH_ROCODE_LANGUAGES']);
  // The default mix keeps its row names; one language's run says which.
  const only = languages.length === BENCH_LANGUAGES.length ? '' : `, ${languages.join(' + ')} only`;
  const root = mkdtempSync(join(tmpdir(), 'pe-rocode-bench-'));
  chmodSync(root, 0o755);
  try {
    const gen = generateRocodeBench(items, { languages });
    const tasksFile = join(root, 'tasks.jsonl');
    const samplesFile = join(root, 'samples.jsonl');
    writeFileSync(tasksFile, `${gen.tasks.join('\n')}\n`);
    writeFileSync(samplesFile, `${gen.samples.join('\n')}\n`);
    // Machine-wide builds exist, as after a first run: the precompiled header is not timed.
    if (languages.includes('cpp')) await ensurePch(join(root, 'polyeval-cache'), '/usr/bin/g++', CPP_FLAGS);
    const thresholds = [500, 1000, 2000].filter((t) => t <= items);
    if (thresholds.length === 0) thresholds.push(items);
    const r = await measureRun(['-b', `rocode:${tasksFile}`, '-m', `replay:${samplesFile}`], {
      home: join(root, 'home'),
      tmp: root,
      rssThresholds: thresholds,
    });
    const verdicts = r.summary.verdicts;
    const same = Object.entries(gen.expected).every(([k, v]) => (verdicts[k] ?? 0) === v) && Object.keys(verdicts).every((k) => k in gen.expected);
    if (!same) throw new Error(`verdicts ${JSON.stringify(verdicts)} differ from the generated mix ${JSON.stringify(gen.expected)}`);
    const programs = programCpuS(join(root, 'home'));
    const bare = bareCpuPerTestMs(
      root,
      (gen.items[0]?.tests ?? []).flatMap((t) => Array.from({ length: 10 }, () => t)),
    );
    const note = loadNote(r);
    const rows: BenchRow[] = [
      {
        name: `rocode scale: items/s (${items} items, 5 tests${only})`,
        value: items / r.wallS,
        unit: 'items/s',
        note: `${r.wallS.toFixed(1)} s; verdicts as generated ${JSON.stringify(verdicts)}; ${note}`,
      },
      {
        // What the same run takes at most with the cores its own (no one else's load): its CPU time
        // spread over them. The CPU read from its processes misses programs the zygotes ran under
        // bubblewrap, so it is taken as no less than the programs' own (their rusage, recorded per
        // test) plus polyeval's own node process: a lower bound, so this rate is an upper one.
        name: `rocode scale: items/s from CPU time, at most (${items} items${only}, all ${availableParallelism()} cores)`,
        value: items / (Math.max(r.cpuS, programs.cpuS + r.ownCpuS) / availableParallelism()),
        unit: 'items/s',
        note: `CPU-s: ${r.cpuS.toFixed(1)} read from the run's processes, ${programs.cpuS.toFixed(1)} the programs' own, ${r.ownCpuS.toFixed(1)} polyeval's node process; ${note}`,
      },
      {
        name: 'rocode scale: machine CPU utilisation',
        value: r.machineUtil * 100,
        unit: '%',
        note: `target ≥ 90; this run alone used ${(r.runUtil * 100).toFixed(0)} % of the cores; ${note}`,
      },
      ...thresholds.map((t) => ({
        name: `rocode scale: harness peak RSS at ${t} items`,
        value: (r.rssAt.get(t) ?? Number.NaN) / 1024,
        unit: 'MB',
        note: 'flat as items grow',
      })),
      {
        name: 'rocode scale: programs CPU per test',
        value: (programs.cpuS * 1000) / programs.tests,
        unit: 'ms',
        note: `inside the sandbox, TLE tests included; bare runs of the OK answers: python ${bare.python.toFixed(1)} ms, cpp ${bare.cpp.toFixed(1)} ms`,
      },
      {
        name: 'rocode scale: harness + sandbox CPU per test',
        value: ((r.cpuS - programs.cpuS) * 1000) / programs.tests,
        unit: 'ms',
        note: 'run CPU minus the programs own CPU (bubblewrap, supervisor, Node, compiles, store)',
      },
    ];
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
