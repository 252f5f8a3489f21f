// Two runs at once on cold machine-wide caches, beside CPU hogs on every core: a busy
// machine, a slow JVM start and two processes building the same supervisor, precompiled
// header and compile server make the runs slower, never different. The hand-computed
// verdicts of the mixed replays (what the runs give alone, see code-benchmarks.test.ts)
// must come out, and no sample may be SE.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJson, ROOT, runCli, tempHome } from '../support/cli.ts';

interface Expected {
  items: { task_id: string; sample: number; verdict: string; acceptable_verdicts?: string[] }[];
}
interface ItemFile {
  record: { task_id: string; sample: number; verdict: string };
}

const hogs: ChildProcess[] = [];
afterAll(() => {
  for (const h of hogs) h.kill('SIGKILL');
});

function verdictsOf(home: string, runId: string): Map<string, string> {
  const dir = join(home, 'store', 'runs', runId, 'items');
  const out = new Map<string, string>();
  for (const task of readdirSync(dir)) {
    for (const file of readdirSync(join(dir, task))) {
      const { record } = JSON.parse(readFileSync(join(dir, task, file), 'utf8')) as ItemFile;
      out.set(`${record.task_id}#${record.sample}`, record.verdict);
    }
  }
  return out;
}

describe('two runs at once beside a CPU hog, on cold caches', () => {
  it('give the verdicts of the runs alone, and no SE', async () => {
    // Cold: a fresh sandbox cache (TMPDIR) and a fresh compile-server cache, shared by both runs.
    const tmp = mkdtempSync(join(tmpdir(), 'pe-under-load-'));
    chmodSync(tmp, 0o755);
    const env = { TMPDIR: tmp, POLYEVAL_CACHE: join(tmp, 'server-cache') };
    for (let i = 0; i < availableParallelism(); i++) hogs.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    const runs = [
      ['sample/rocode', 'rocode-mixed'],
      ['sample/kotlin-humaneval', 'kotlin-mixed'],
    ] as const;
    const results = await Promise.all(
      runs.map(async ([suite, replay]) => {
        const home = tempHome();
        const result = await runCli(['run', '-b', suite, '-m', `replay:${join(ROOT, `sample/replay/${replay}.jsonl`)}`, '--json', '-q', '--home', home], {
          env,
        });
        expect(result.code, result.stderr).toBe(0);
        return { home, replay, run: parseJson<{ run_id: string; verdicts: Record<string, number> }>(result) };
      }),
    );
    for (const { home, replay, run } of results) {
      expect(run.verdicts['SE'], replay).toBeUndefined();
      const expected = JSON.parse(readFileSync(join(ROOT, `sample/replay/expected-${replay}.json`), 'utf8')) as Expected;
      const got = verdictsOf(home, run.run_id);
      for (const item of expected.items) {
        const key = `${item.task_id}#${item.sample}`;
        expect(item.acceptable_verdicts ?? [item.verdict], `${replay} ${key}`).toContain(got.get(key));
      }
    }
  }, 1_800_000);
});
