// Sandbox figures: (b) C++ compile with vs without the PCH, (c) sandbox overhead per test
// vs spawning the same program bare (Python, C), (d) executions per second at concurrency = cores.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IoTestsTask } from '#core/types.ts';
import { createSandboxExecutor } from '#sandbox/index.ts';
import { CPP_FLAGS, cppCompileArgv } from '#sandbox/languages/cpp.ts';
import { ensurePch } from '#sandbox/languages/pch.ts';
import type { BenchRow } from './index.ts';

const PY = 'a, b = map(int, input().split())\nprint(a + b)\n';
const C = '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;}\n';

function task(tests: number): IoTestsTask {
  return {
    kind: 'io-tests',
    id: 'sum',
    benchmark: 'bench',
    split: 'test',
    slices: {},
    name: 'sum',
    statement: '',
    inputSpec: '',
    outputSpec: '',
    examples: [],
    tests: Array.from({ length: tests }, (_, i) => ({ input: `${i} 1\n`, output: `${i + 1}\n` })),
    timeLimitMs: 2000,
    memoryLimitMb: 256,
    checker: { kind: 'tokens' },
    solutions: {},
  };
}

function timeMs(fn: () => void, n: number): number {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn();
  return (performance.now() - t0) / n;
}

export async function run(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), 'pe-bench-'));
  chmodSync(root, 0o755);
  const rows: BenchRow[] = [];
  try {
    const cacheDir = join(root, 'cache');
    // (b) PCH
    const { dir: pch } = await ensurePch(cacheDir, '/usr/bin/g++', CPP_FLAGS);
    const build = join(root, 'cpp');
    mkdirSync(build);
    writeFileSync(
      join(build, 'main.cpp'),
      '#include <bits/stdc++.h>\nusing namespace std;\nint main(){ map<string,int> m; vector<int> v(10); iota(v.begin(), v.end(), 0); for (int x : v) m[to_string(x)] = x; cout << m.size() << "\\n"; }\n',
    );
    const compile = (withPch: boolean) => {
      const [cxx, ...args] = cppCompileArgv(build, withPch ? pch : undefined);
      const r = spawnSync(cxx as string, args, { env: { PATH: '/usr/bin:/bin' } });
      if (r.status !== 0) throw new Error(String(r.stderr));
    };
    const withPch = timeMs(() => compile(true), 5);
    const without = timeMs(() => compile(false), 5);
    rows.push({ name: '(b) C++ compile with PCH', value: withPch, unit: 'ms' });
    rows.push({ name: '(b) C++ compile without PCH', value: without, unit: 'ms', note: `speed-up ×${(without / withPch).toFixed(1)} (target ≥ 3)` });

    // (c) overhead per test: sandboxed run vs bare spawn of the same program
    const executor = await createSandboxExecutor({ concurrency: 1, cacheDir, workRoot: join(root, 'work') });
    const bareC = join(root, 'bare-c');
    writeFileSync(`${bareC}.c`, C);
    spawnSync('gcc', ['-O2', '-o', bareC, `${bareC}.c`]);
    writeFileSync(join(root, 'bare.py'), PY);
    const tests = 20;
    for (const [language, code, bare] of [
      ['python', PY, () => spawnSync('/usr/bin/python3', ['-I', '-B', join(root, 'bare.py')], { input: '1 2\n' })],
      ['c', C, () => spawnSync(bareC, [], { input: '1 2\n' })],
    ] as const) {
      await executor.execute({ scorer: 'io-tests', task: task(1), language, code }); // compile + warm cache
      const t0 = performance.now();
      const outcome = await executor.execute({ scorer: 'io-tests', task: task(tests), language, code });
      const sandboxed = (performance.now() - t0) / tests;
      if (outcome.verdict !== 'OK') throw new Error(`${language}: ${outcome.verdict} ${outcome.error ?? ''}`);
      const bareMs = timeMs(bare, tests);
      rows.push({ name: `(c) ${language} per test, sandboxed (${executor.isolation})`, value: sandboxed, unit: 'ms' });
      rows.push({
        name: `(c) ${language} per test, bare spawn`,
        value: bareMs,
        unit: 'ms',
        note: `overhead ${(sandboxed - bareMs).toFixed(1)} ms (target ≤ 15)`,
      });
    }
    await executor.close();

    // (d) throughput at concurrency = cores
    const cores = availableParallelism();
    const parallel = await createSandboxExecutor({ concurrency: cores, cacheDir, workRoot: join(root, 'work') });
    const jobs = 40;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: jobs }, () => parallel.execute({ scorer: 'io-tests', task: task(1), language: 'c', code: C })));
    rows.push({
      name: `(d) C executions/s at concurrency ${cores}`,
      value: jobs / ((performance.now() - t0) / 1000),
      unit: 'exec/s',
      note: '1 test each, cached build',
    });
    await parallel.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}
