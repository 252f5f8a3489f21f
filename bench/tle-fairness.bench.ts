/**
 * Issue 12: time limits stay fair under load. The same TLE-boundary programs (C, burning a
 * given amount of CPU time against a 1 s limit: 0.2, 0.5, 0.8 s are within it, 1.3 and 2.5 s
 * over it) are judged alone and then with every core busy (6 CPU hogs per core plus `cores`
 * judgements at once): the verdicts must be the same. CPU time decides; the wall clock is
 * only the safety net and stretches with the load. The last row counts the loaded runs whose
 * wall time exceeded the unstretched wall limit (2 × limit + 2 s), i.e. that a wall-clock
 * rule would have turned into TLE.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IoTestsTask, ScoreOutcome } from '#core/types.ts';
import { wallLimitFor } from '#core/judging/io-tests-judge.ts';
import { createSandboxExecutor } from '#sandbox/index.ts';
import type { BenchRow } from './index.ts';

const BURN =
  '#include <stdio.h>\n#include <time.h>\nint main(void){long ms;if(scanf("%ld",&ms)!=1)return 1;volatile unsigned long x=0;while((double)clock()*1000.0/CLOCKS_PER_SEC<ms)x++;printf("%ld\\n",ms);return 0;}\n';
const LIMIT_MS = 1000;
const BURNS = [200, 500, 800, 1300, 2500];
const ROUNDS = 2;
/** CPU hogs per core while the loaded round runs (plus `cores` judgements at once). */
const HOGS_PER_CORE = 6;

function task(ms: number): IoTestsTask {
  return {
    kind: 'io-tests',
    id: `burn-${ms}`,
    benchmark: 'bench',
    split: 'test',
    slices: {},
    name: 'burn',
    statement: '',
    inputSpec: '',
    outputSpec: '',
    examples: [],
    tests: [{ input: `${ms}\n`, output: `${ms}\n` }],
    timeLimitMs: LIMIT_MS,
    memoryLimitMb: 64,
    checker: { kind: 'tokens' },
    solutions: {},
  };
}

function hogs(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}

export async function run(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), 'pe-tle-bench-'));
  chmodSync(root, 0o755);
  const cores = availableParallelism();
  const executor = await createSandboxExecutor({ concurrency: cores, cacheDir: join(root, 'cache'), workRoot: join(root, 'work') });
  const judge = async (): Promise<{ ms: number; outcome: ScoreOutcome }[]> => {
    const jobs = Array.from({ length: ROUNDS }, () => BURNS).flat();
    return Promise.all(jobs.map(async (ms) => ({ ms, outcome: await executor.execute({ scorer: 'io-tests', task: task(ms), language: 'c', code: BURN }) })));
  };
  let running: ChildProcess[] = [];
  try {
    await executor.execute({ scorer: 'io-tests', task: task(1), language: 'c', code: BURN }); // compile once
    const alone: { ms: number; outcome: ScoreOutcome }[] = [];
    for (const ms of BURNS) alone.push({ ms, outcome: await executor.execute({ scorer: 'io-tests', task: task(ms), language: 'c', code: BURN }) });
    const loadAlone = loadavg()[0] ?? 0;
    running = hogs(HOGS_PER_CORE * cores);
    const loaded = await judge();
    const loadLoaded = loadavg()[0] ?? 0;
    const expected = new Map(alone.map((a) => [a.ms, a.outcome.verdict]));
    const same = loaded.filter((l) => l.outcome.verdict === expected.get(l.ms)).length;
    const oldWall = wallLimitFor(LIMIT_MS);
    const wouldTle = loaded.filter((l) => (l.outcome.tests?.[0]?.runMs ?? 0) > oldWall && l.ms <= LIMIT_MS).length;
    const maxWall = Math.max(...loaded.map((l) => l.outcome.tests?.[0]?.runMs ?? 0));
    const verdicts = (xs: { ms: number; outcome: ScoreOutcome }[]) => xs.map((x) => `${x.ms}:${x.outcome.verdict}`).join(' ');
    return [
      {
        name: 'TLE fairness: loaded verdicts equal alone',
        value: same,
        unit: `/${loaded.length}`,
        note: `alone ${verdicts(alone)} (load ${loadAlone.toFixed(1)}); loaded with ${HOGS_PER_CORE * cores} hogs on ${cores} cores (load ${loadLoaded.toFixed(1)})`,
      },
      {
        name: 'TLE fairness: longest loaded wall time',
        value: maxWall / 1000,
        unit: 's',
        note: `limit ${LIMIT_MS} ms of CPU; an unstretched wall limit would be ${oldWall / 1000} s`,
      },
      {
        name: 'TLE fairness: within-limit runs a wall rule would TLE',
        value: wouldTle,
        unit: 'runs',
        note: 'loaded runs of programs within the limit whose wall time exceeded 2 × limit + 2 s',
      },
    ];
  } finally {
    for (const h of running) h.kill('SIGKILL');
    await executor.close();
    rmSync(root, { recursive: true, force: true });
  }
}
