// Probes aimed at Python's zygote (layers/sandbox/languages/python-zygote.*): a program that
// goes for the zygote (signals, ptrace, its memory) or for the sample after it (files in /tmp,
// its directory, patched modules and builtins, atexit hooks, a process left behind, a
// memory or fork bomb). At each level the zygote runs at — bubblewrap + Landlock, rlimits +
// Landlock, and rlimits with the seccomp filter only (as on Lambda, where Landlock is absent
// and a program can signal the zygote) — the next sample's verdict must not change, and every
// probe's own verdict must be the one it gets without a zygote (POLYEVAL_PYTHON_ZYGOTE=0).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxExecutor, type SandboxExecutor } from '#sandbox/index.ts';
import { MEMORY_BOMB_CPU_MS } from '#core/selftest/hostile-programs.ts';
import { leftoverWork, scratch, settledProcesses, sumTask } from './helpers.ts';

const SUM = 'a, b = map(int, input().split())\nprint(a + b)\n';

/** The SysV IPC key a probe leaves objects under. */
const IPC_KEY = 0x5e1f;

/**
 * The next sample: the sum, but only when it finds nothing an earlier sample left. /tmp is
 * checked where programs have a private one or cannot write it (not at the seccomp-only
 * level, where /tmp is the host's, shared by every program as without a zygote).
 */
const next = (tmp: boolean, ipc: boolean) => `import atexit, builtins, ctypes, math, os, sys
found = []
if ${tmp ? 'True' : 'False'} and os.path.exists("/tmp/pe_zygote_mark"):
    found.append("/tmp")
if ${ipc ? 'True' : 'False'}:
    libc = ctypes.CDLL(None)
    for kind, get in (("shm", lambda: libc.shmget(${IPC_KEY}, 0, 0)), ("msg", lambda: libc.msgget(${IPC_KEY}, 0)), ("sem", lambda: libc.semget(${IPC_KEY}, 0, 0))):
        if get() >= 0:
            found.append(kind)
    if libc.mq_open(b"/pe_zygote_mark", 0) >= 0:
        found.append("mq")
for path in ("pe_zygote_mark", "../pe_zygote_mark", "../../pe_zygote_mark"):
    if os.path.exists(path):
        found.append(path)
if math.sqrt(16) != 4.0 or getattr(builtins, "pe_planted", None) or "pe_planted" in sys.modules:
    found.append("modules")
for fd in range(3, 64):
    try:
        os.fstat(fd)
        found.append(f"fd {fd}")
    except OSError:
        pass
a, b = map(int, input().split())
print(a + b if not found else " ".join(found))
`;

/** Where the program runs: in a zygote's child (started `-c`) or as an interpreter of its own (`main.py`). */
const WHERE = 'import sys\nprint("zygote" if "-c" in sys.orig_argv else "own")\n';

/**
 * Probes whose exit status or signal must also be the one without a zygote (CPython's own ends
 * of a script: SystemExit's status, an uncaught KeyboardInterrupt, the recursion limit).
 */
const EXACT: [name: string, code: string][] = [
  ['exits with a status no C long holds (CPython: 255)', `${SUM}import sys\nsys.exit(2 ** 70)\n`],
  ['exits with a negative status', `${SUM}import sys\nsys.exit(-1)\n`],
  ['ends by an uncaught KeyboardInterrupt (CPython: killed by SIGINT)', `${SUM}raise KeyboardInterrupt\n`],
  [
    'recurses as deep as it can (its exit status says how deep)',
    `import sys
def f(n):
    try:
        return f(n + 1)
    except RecursionError:
        return n
depth = f(0)
${SUM}sys.exit(depth % 256)
`,
  ],
];

const PROBES: [name: string, code: string, timeLimitMs?: number][] = [
  [
    'signals the zygote and its process group (SIGKILL, SIGSTOP)',
    `import os, signal
for send in (lambda: os.kill(os.getppid(), signal.SIGKILL), lambda: os.killpg(os.getpgid(os.getppid()), signal.SIGKILL), lambda: os.kill(os.getppid(), signal.SIGSTOP)):
    try:
        send()
    except OSError:
        pass
${SUM}`,
  ],
  [
    'ptraces the zygote and reads its memory, environment, descriptors and directories through /proc/<pid>',
    `import ctypes, os
ppid = os.getppid()
got = []
try:
    if ctypes.CDLL(None, use_errno=True).ptrace(16, ppid, 0, 0) == 0:
        got.append("ptrace")
except OSError:
    pass
for name in ("mem", "environ", "maps"):
    try:
        with open(f"/proc/{ppid}/{name}", "rb") as f:
            if f.read(16):
                got.append(name)
    except OSError:
        pass
for name in ("fd", "cwd", "root"):
    try:
        os.listdir(f"/proc/{ppid}/{name}")
        got.append(name)
    except OSError:
        pass
if got:
    print("reached", *got)
else:
    ${SUM.replace('\n', '\n    ').trimEnd()}
`,
  ],
  [
    'writes toward the next sample (/tmp, directories, sys.modules, builtins, atexit, inherited fds)',
    `import atexit, builtins, math, os, sys, types
for path in ("/tmp/pe_zygote_mark", "pe_zygote_mark", "../pe_zygote_mark", "../../pe_zygote_mark"):
    try:
        open(path, "w").write("x")
    except OSError:
        pass
math.sqrt = lambda x: 0
builtins.pe_planted = True
sys.modules["pe_planted"] = types.ModuleType("pe_planted")
for fd in range(3, 20):
    try:
        os.dup2(1, fd, inheritable=True)
    except OSError:
        pass
atexit.register(lambda: open("/tmp/pe_zygote_mark", "w"))
${SUM}`,
  ],
  [
    'leaves a process behind that goes for whatever runs next',
    `import os, signal, time
parent = os.getppid()
if os.fork() == 0:
    os.setsid()
    time.sleep(0.3)
    try:
        os.kill(parent, signal.SIGKILL)
    except OSError:
        pass
    try:
        open("/tmp/pe_zygote_mark", "w")
    except OSError:
        pass
    time.sleep(60)
${SUM}`,
  ],
  [
    'leaves SysV shared memory, message queues, semaphores and a POSIX message queue (a private IPC namespace without a zygote)',
    `import ctypes
libc = ctypes.CDLL(None)
libc.shmget(${IPC_KEY}, 4096, 0o1600)
libc.msgget(${IPC_KEY}, 0o1600)
libc.semget(${IPC_KEY}, 1, 0o1600)
libc.mq_open(b"/pe_zygote_mark", 0o102, 0o600, None)
${SUM}`,
  ],
  ['exhausts memory', 'x = []\nwhile True:\n    x.append(bytearray(1 << 20))\n', MEMORY_BOMB_CPU_MS],
  ['forks a bomb', 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n'],
];

type Level = { name: string; options: Parameters<typeof createSandboxExecutor>[0] & object; tmp: boolean; ipc: boolean };
const LEVELS: Level[] = [
  { name: 'bubblewrap + Landlock', options: { isolation: 'bwrap' }, tmp: true, ipc: true },
  { name: 'rlimits + Landlock', options: { isolation: 'rlimits' }, tmp: true, ipc: false },
  {
    name: 'rlimits + seccomp only (Landlock off, as on Lambda)',
    options: { isolation: 'rlimits', isolationOptions: { confine: 'seccomp' } },
    tmp: false,
    ipc: false,
  },
];

describe.each(LEVELS)('the Python zygote at $name', ({ name, options, tmp, ipc }) => {
  const dirs = scratch(`zygote-${name.split(' ')[0]}`);
  const without = scratch(`zygote-off-${name.split(' ')[0]}`);
  let executor: SandboxExecutor;
  let reference: SandboxExecutor;
  const run = (ex: SandboxExecutor, code: string, timeLimitMs = 1000) =>
    ex.execute({ scorer: 'io-tests', task: sumTask({ tests: [{ input: '1 2\n', output: '3\n' }], timeLimitMs }), language: 'python', code });

  beforeAll(async () => {
    executor = await createSandboxExecutor({ ...options, concurrency: 1, cacheDir: dirs.cacheDir, workRoot: dirs.workRoot });
    // The same sandbox without a zygote: each program an interpreter of its own.
    process.env['POLYEVAL_PYTHON_ZYGOTE'] = '0';
    try {
      reference = await createSandboxExecutor({ ...options, concurrency: 1, cacheDir: without.cacheDir, workRoot: without.workRoot });
      await run(reference, SUM);
    } finally {
      delete process.env['POLYEVAL_PYTHON_ZYGOTE'];
    }
  }, 600_000);

  afterAll(async () => {
    rmSync('/tmp/pe_zygote_mark', { force: true });
    // Outside bubblewrap the probe's IPC objects are the host's (as without a zygote).
    for (const kind of ['-M', '-Q', '-S']) spawnSync('ipcrm', [kind, String(IPC_KEY)], { stdio: 'ignore' });
    spawnSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).mq_unlink(b"/pe_zygote_mark")'], { stdio: 'ignore' });
    await executor?.close();
    await reference?.close();
    // close() waits for the trash's removers and removes the trash: nothing of a finished sample is left.
    const left = [dirs.workRoot, without.workRoot].flatMap((root) => readdirSync(root).filter((n) => n.startsWith('trash-')));
    rmSync(dirs.root, { recursive: true, force: true });
    rmSync(without.root, { recursive: true, force: true });
    expect(left).toEqual([]);
  });

  it('runs programs in a zygote (and without one when told)', async () => {
    const io = (expected: string) => ({
      scorer: 'io-tests' as const,
      task: sumTask({ tests: [{ input: '', output: expected }] }),
      language: 'python' as const,
      code: WHERE,
    });
    expect((await executor.execute(io('zygote\n'))).verdict).toBe('OK');
    expect((await reference.execute(io('own\n'))).verdict).toBe('OK');
  }, 120_000);

  it.each(EXACT)(
    'a program that %s ends as without a zygote',
    async (_name, code) => {
      const outcome = await run(executor, code);
      const alone = await run(reference, code);
      const end = (o: typeof outcome) => o.tests?.map((t) => [t.verdict, t.exitCode, t.signal]);
      expect(end(outcome), JSON.stringify(outcome).slice(0, 600)).toEqual(end(alone));
      expect(outcome.verdict).toBe(alone.verdict);
    },
    120_000,
  );

  it("a program's peak memory is about what it is without a zygote (the zygote holds nothing big)", async () => {
    const outcome = await run(executor, SUM);
    const alone = await run(reference, SUM);
    expect(outcome.verdict).toBe('OK');
    expect(Math.abs((outcome.peakMemoryKb ?? 0) - (alone.peakMemoryKb ?? 0)), JSON.stringify([outcome, alone]).slice(0, 600)).toBeLessThan(8 * 1024);
  }, 120_000);

  it('a program that swaps its directories for links to a host directory cannot make the harness move or empty it', async () => {
    // Where Landlock is off a program may write the zygote's directory: it puts links where
    // its working directory and its sample directory were, then ends the zygote (the
    // harness then restores the working directory it moves back, for the fallback).
    const victim = join(dirs.root, 'victim');
    mkdirSync(join(victim, 'work'), { recursive: true });
    writeFileSync(join(victim, 'keep'), 'x');
    writeFileSync(join(victim, 'work', 'keep'), 'x');
    // The working directory (`up` 0) or the sample's directory above it (`up` 1) becomes a link.
    const swap = (up: number) => `import os, signal
d = os.getcwd()
for _ in range(${up}):
    d = os.path.dirname(d)
try:
    os.rename(d, d + "-gone")
    os.symlink(${JSON.stringify(victim)}, d)
except OSError:
    pass
os.kill(os.getppid(), signal.SIGKILL)
${SUM}`;
    for (const code of [swap(0), swap(1)]) {
      const outcome = await run(executor, code);
      expect(outcome.verdict, JSON.stringify(outcome).slice(0, 600)).toBe((await run(reference, code)).verdict);
      expect([existsSync(join(victim, 'keep')), existsSync(join(victim, 'work', 'keep'))]).toEqual([true, true]);
    }
    expect((await run(executor, next(tmp, ipc))).verdict).toBe('OK');
  }, 120_000);

  it("a program reads no other sample's build, only its own (as without a zygote)", async () => {
    // The e2e self-test's "reading the expected output" probe found a C probe's binary (which
    // holds the marker) below the builds directory: under bubblewrap the zygote saw every
    // build, and below the /tmp its children may read and write.
    const mark = 'PE_OTHER_' + 'BUILD_MARK';
    const other = `# ${mark}\n${SUM}`;
    const probe = `import os
builds = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
found = []
for d, _, files in os.walk(builds):
    for f in files:
        try:
            if "PE_OTHER_" + "BUILD_MARK" in open(os.path.join(d, f), errors="ignore").read():
                found.append(os.path.join(d, f))
        except OSError:
            pass
print(*found) if found else print("nothing")
`;
    const read = (ex: SandboxExecutor) =>
      ex.execute({ scorer: 'io-tests', task: sumTask({ tests: [{ input: '1 2\n', output: 'nothing\n' }] }), language: 'python', code: probe });
    expect((await run(executor, other)).verdict).toBe('OK');
    expect((await run(reference, other)).verdict).toBe('OK');
    const outcome = await read(executor);
    const alone = await read(reference);
    expect(outcome.verdict, JSON.stringify(outcome).slice(0, 600)).toBe(alone.verdict);
    // Where Landlock confines programs, neither reads another build; with the seccomp filter only, both may.
    if (tmp) expect(outcome.verdict, JSON.stringify(outcome).slice(0, 600)).toBe('OK');
    expect((await run(executor, next(tmp, ipc))).verdict).toBe('OK');
  }, 120_000);

  it("a program's build is the cache's own files, linked read-only: it cannot alter them, and the same source runs unaltered after it", async () => {
    // Under bubblewrap the zygote's view shows a sample's build as hard links to the cache's
    // files (python-zygote.ts showBuild): a program that could write them would change every
    // later run of the same source.
    const probe = `import os, sys
${SUM}try:
    with open(__file__, "a") as f:
        f.write("\\nprint('altered')\\n")
    print("wrote")
except OSError:
    pass
try:
    os.chmod(__file__, 0o666)
    print("chmod")
except OSError:
    pass
try:
    os.truncate(__file__, 0)
    print("truncated")
except OSError:
    pass
try:
    os.close(os.open("/proc/self/fd/%d" % os.open(__file__, os.O_RDONLY), os.O_WRONLY))
    print("reopened for writing")
except OSError:
    pass
`;
    const links = 'import os\nprint("linked" if os.stat(__file__).st_nlink > 1 else "copied")\n';
    const outcome = await run(executor, probe);
    expect(outcome.verdict, JSON.stringify(outcome).slice(0, 600)).toBe((await run(reference, probe)).verdict);
    expect(outcome.verdict, JSON.stringify(outcome).slice(0, 600)).toBe('OK');
    // The zygote under bubblewrap sees the build through its view: linked there, not copied.
    if (name.startsWith('bubblewrap')) {
      const shown = await executor.execute({
        scorer: 'io-tests',
        task: sumTask({ tests: [{ input: '', output: 'linked\n' }] }),
        language: 'python',
        code: links,
      });
      expect(shown.verdict, JSON.stringify(shown).slice(0, 600)).toBe('OK');
    }
    // The same source again: a cache hit, run from the same files, still unaltered.
    expect((await run(executor, probe)).verdict).toBe('OK');
  }, 120_000);

  it("a program finds nothing of an earlier sample's directories, which the harness removes in the background", async () => {
    // Finished work and sample directories wait in the executor's trash (layers/sandbox/trash.ts)
    // beside the zygotes' directories until a worker removes them: no program may reach them.
    const leave = `open("left.txt", "w").write("PE_TRASH_" + "MARK")\n${SUM}`;
    const probe = `import os
found = []
top = os.path.abspath(".")
for _ in range(4):
    top = os.path.dirname(top)
    try:
        if not any(name.startswith("trash-") for name in os.listdir(top)):
            continue
    except OSError:
        continue
    try:
        for d, _, files in os.walk(top):
            for f in files:
                try:
                    if "PE_TRASH_" + "MARK" in open(os.path.join(d, f), errors="ignore").read(4096):
                        found.append(os.path.join(d, f))
                except OSError:
                    pass
    except OSError:
        pass
${SUM.trimEnd()} if not found else None
if found:
    print(*sorted(set(found)))
`;
    for (let i = 0; i < 5; i++) expect((await run(executor, leave)).verdict).toBe('OK');
    const outcome = await run(executor, probe);
    expect(outcome.verdict, JSON.stringify(outcome).slice(0, 600)).toBe((await run(reference, probe)).verdict);
    // Where Landlock confines programs they read only their own build and directory.
    if (tmp) expect(outcome.verdict, JSON.stringify(outcome).slice(0, 600)).toBe('OK');
  }, 120_000);

  it.each(PROBES)(
    'a program that %s gets its own verdict and leaves the next sample unchanged',
    async (_name, code, timeLimitMs) => {
      const outcome = await run(executor, code, timeLimitMs);
      const alone = await run(reference, code, timeLimitMs);
      expect(outcome.verdict, JSON.stringify(outcome).slice(0, 600)).toBe(alone.verdict);
      const after = await run(executor, next(tmp, ipc));
      expect(after.verdict, JSON.stringify(after).slice(0, 600)).toBe('OK');
      expect(await settledProcesses(dirs.workRoot)).toEqual([]);
      expect(await leftoverWork(dirs.workRoot)).toEqual([]);
    },
    300_000,
  );
});
