// The `rlimits` level (no bubblewrap): what it contains, tested explicitly, and what it does
// not isolate, stated by the harness itself.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Verdict } from '#core/types.ts';
import { createSandboxExecutor, type SandboxExecutor } from '#sandbox/index.ts';
import { ISOLATION_GAPS } from '#sandbox/isolation.ts';
import { leftoverWork, scratch, settledProcesses, sumTask } from './helpers.ts';
import { HOSTILE_CASES, MEMORY_BOMB_CPU_MS, type HostileLanguage, type Probe } from '#core/selftest/hostile-programs.ts';
import { forgeCheckerAnswer, killChecker, NOT_PYTHON } from './checker-attacks.ts';

const dirs = scratch('rlimits');
const SECRET_NAME = 'POLYEVAL_TEST_SECRET';
const secret = 'rlimits-parent-secret-5d1c';
const probe: Probe = { port: 9, secretName: SECRET_NAME, outside: [] };
let executor: SandboxExecutor;

beforeAll(async () => {
  process.env[SECRET_NAME] = secret;
  executor = await createSandboxExecutor({ isolation: 'rlimits', concurrency: 2, cacheDir: dirs.cacheDir, workRoot: dirs.workRoot });
}, 600_000);

afterAll(async () => {
  await executor?.close();
  delete process.env[SECRET_NAME];
  rmSync(dirs.root, { recursive: true, force: true });
});

const hostile = (attack: string, language: HostileLanguage) => {
  const c = HOSTILE_CASES.find((x) => x.attack === attack && x.language === language);
  if (!c) throw new Error(`no hostile case ${attack} in ${language}`);
  return c.code(probe);
};

const grandchild = {
  python:
    'import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        os.execv("/usr/bin/sleep", ["sleep", "1000000"])\n    time.sleep(10**6)\nwhile True:\n    pass\n',
  c: '#include <unistd.h>\nint main(void){if(fork()==0){setsid();if(fork()==0)execl("/usr/bin/sleep","sleep","1000000",(char*)0);for(;;)pause();}volatile unsigned long x=0;for(;;)x++;}\n',
};
// kill(-1) is left out: at this level it would reach every program running as the sandbox uid.
const killParent = {
  python:
    'import os, signal\ntry:\n    os.kill(os.getppid(), signal.SIGKILL)\n    print("killed")\nexcept PermissionError:\n    a, b = map(int, input().split())\n    print(a + b)\n',
  c: '#include <signal.h>\n#include <stdio.h>\n#include <unistd.h>\nint main(void){if(kill(getppid(),SIGKILL)==0){puts("killed");return 0;}int a,b;if(scanf("%d %d",&a,&b)==2)printf("%d\\n",a+b);return 0;}\n',
};

type Case = [behaviour: string, language: 'python' | 'c', code: () => string, verdicts: Verdict[], timeLimitMs?: number];
const cases: Case[] = (['python', 'c'] as const).flatMap((language): Case[] => [
  ['contains a fork bomb', language, () => hostile('fork bomb', language), ['TLE', 'RE']],
  ['gives MLE to a memory bomb', language, () => hostile('memory bomb', language), ['MLE'], MEMORY_BOMB_CPU_MS],
  ['kills grandchildren at the wall-clock deadline', language, () => grandchild[language], ['TLE']],
  ['gives the program an empty environment', language, () => hostile('reading the parent environment and /proc/<pid>/environ', language), ['OK']],
  ['gives OLE beyond the output cap', language, () => hostile('1 GB to stdout', language), ['OLE']],
  ['gives OLE to a disk fill', language, () => hostile('disk fill', language), ['OLE']],
  ['keeps the supervisor out of the program reach', language, () => killParent[language], ['OK']],
]);

describe('the rlimits isolation level', () => {
  it('is the level the executor uses when asked for it', () => {
    expect(executor.isolation).toBe('rlimits');
  });

  it.each(cases)(
    '%s in %s',
    async (_behaviour, language, code, verdicts, timeLimitMs = 1000) => {
      const outcome = await executor.execute({
        scorer: 'io-tests',
        task: sumTask({ tests: [{ input: '1 2\n', output: '3\n' }], timeLimitMs }),
        language,
        code: code(),
      });
      expect(verdicts, JSON.stringify(outcome).slice(0, 600)).toContain(outcome.verdict);
      expect(JSON.stringify(outcome)).not.toContain(secret);
      expect(await settledProcesses(dirs.root)).toEqual([]);
      expect(await leftoverWork(dirs.workRoot)).toEqual([]);
    },
    120_000,
  );

  it('does not isolate the network, the host file system or concurrent programs, and says so', () => {
    expect(ISOLATION_GAPS.rlimits.join('\n')).toMatch(/network[\s\S]*file system[\s\S]*other sandboxes/u);
    expect(ISOLATION_GAPS.bwrap).toEqual([]);
  });
});

// Without Landlock (Lambda's kernel has none; POLYEVAL_CONFINE=seccomp), a program reads
// /proc/<pid> of every process of its uid: the executor's own services included.
describe('the rlimits level without Landlock', () => {
  const bare = scratch('rlimits-seccomp');
  let seccompOnly: SandboxExecutor;

  beforeAll(async () => {
    seccompOnly = await createSandboxExecutor({
      isolation: 'rlimits',
      isolationOptions: { confine: 'seccomp' },
      concurrency: 2,
      cacheDir: bare.cacheDir,
      workRoot: bare.workRoot,
    });
  }, 600_000);

  afterAll(async () => {
    await seccompOnly?.close();
    rmSync(bare.root, { recursive: true, force: true });
  });

  it.each([
    ['forging its answers through /proc/<pid>/fd', forgeCheckerAnswer],
    ['killing it', killChecker],
  ])(
    "keeps CE exactly as compile() decides it when a program goes for the executor's Python syntax checker by %s",
    async (_attack, attack) => {
      const execute = (code: string) =>
        seccompOnly.execute({ scorer: 'io-tests', task: sumTask({ tests: [{ input: '1 2\n', output: '3\n' }] }), language: 'python', code });

      const hostileOutcome = await execute(attack(bare.workRoot));
      const after = await execute(NOT_PYTHON);
      const good = await execute('a, b = map(int, input().split())\nprint(a + b)\n');

      expect(hostileOutcome.verdict, JSON.stringify(hostileOutcome).slice(0, 600)).toBe('OK');
      expect(after.verdict, JSON.stringify(after).slice(0, 600)).toBe('CE');
      expect(after.error ?? '').toMatch(/SyntaxError/);
      expect(good.verdict, JSON.stringify(good).slice(0, 600)).toBe('OK');
      expect(await settledProcesses(bare.root)).toEqual([]);
    },
    120_000,
  );
});
