// The hostile suite run the way the execute Lambda runs it: the handler's code
// (functions/execute/container-sandbox.ts) in a process of an unprivileged uid that holds AWS
// credentials in its environment, bubblewrap unusable (a stand-in that fails the way it does
// on Lambda), node execute-only as the executor images make it, the supervisor prebuilt in a
// read-only image directory. Then again with Landlock off, as on a kernel without it: writes
// outside are possible there, and the after-item check must discard the container.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionJob } from '#core/ports.ts';
import { buildSupervisor } from '#sandbox/supervisor.ts';
import { scratch, settledProcesses, sumTask, unitTask } from './helpers.ts';
import { EARLY_EXIT, HOSTILE_CASES, type HostileCase, type Probe } from '#core/selftest/hostile-programs.ts';

// The "Lambda user": a uid no other process on this (shared) machine uses, as on Lambda,
// where the after-item check counts every process of that uid outside the harness.
const UID = 47_123;
const dirs = scratch('lambda');
const canary = `canary-${randomBytes(8).toString('hex')}`;
const AWS_ENV = { AWS_ACCESS_KEY_ID: `ASIA${canary}`, AWS_SECRET_ACCESS_KEY: `secret-${canary}`, AWS_SESSION_TOKEN: `token-${canary}` };
const image = join(dirs.root, 'image-cache');
const home = join(dirs.root, 'home');
const harness = resolve('node_modules/.cache/polyeval-lambda-harness/harness.mjs');
let server: Server;
let connections = 0;

/** Stands in for bubblewrap on Lambda, which allows no namespaces. */
const FAKE_BWRAP =
  '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n';

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('this test emulates the Lambda user and must run as root (as CI does)');
  mkdirSync(image, { recursive: true });
  await buildSupervisor(image); // the image's prebuilt, root-owned, read-only supervisor
  copyFileSync(process.execPath, join(dirs.root, 'node'));
  chmodSync(join(dirs.root, 'node'), 0o711); // as the images do: node processes become non-dumpable
  writeFileSync(join(dirs.root, 'bwrap'), FAKE_BWRAP, { mode: 0o755 });
  mkdirSync(join(home, '.aws'), { recursive: true });
  writeFileSync(join(home, '.aws', 'credentials'), `[default]\naws_secret_access_key = file-${canary}\n`, { mode: 0o600 });
  for (const p of [home, join(home, '.aws'), join(home, '.aws', 'credentials')]) chownSync(p, UID, UID);
  await build({
    entryPoints: ['test/sandbox/lambda-harness.ts'],
    outfile: harness,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['kotlin-compiler'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'warning',
  });
  // As scripts/bundle-images.mjs does: the supervisor's C source beside the bundle (the sandbox names its build by it).
  copyFileSync('layers/sandbox/pe-supervisor.c', join(dirname(harness), 'pe-supervisor.c'));
  // … and Python's zygote, which the sandbox starts from the script beside its bundle (as in the images).
  copyFileSync('layers/sandbox/languages/python-zygote.py', join(dirname(harness), 'python-zygote.py'));
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
}, 300_000);

afterAll(() => {
  server?.close();
  rmSync(dirs.root, { recursive: true, force: true });
});

interface Line {
  id?: string;
  outcome?: { verdict: string };
  check?: { clean: boolean; survivors: unknown[]; changes: string[] };
  discarded?: boolean;
  report?: { changes: string[] };
  isolation?: { label: string; exposures: string[] };
}

/** One "execution environment": a fresh /tmp, the harness as the Lambda user, until it ends. */
async function invoke(
  name: string,
  jobs: { id: string; job: ExecutionJob }[],
  extraEnv: Record<string, string> = {},
  node = join(dirs.root, 'node'),
): Promise<{ lines: Line[]; raw: string; code: number | null; tmp: string }> {
  const tmp = join(dirs.root, `tmp-${name}`);
  mkdirSync(tmp);
  chownSync(tmp, UID, UID);
  const file = join(dirs.root, `${name}.json`);
  writeFileSync(file, JSON.stringify(jobs));
  const env = {
    ...AWS_ENV,
    ...extraEnv,
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    TMPDIR: tmp,
    POLYEVAL_CACHE: image,
    POLYEVAL_BWRAP: join(dirs.root, 'bwrap'),
    ...(process.env.JAVA_HOME ? { JAVA_HOME: process.env.JAVA_HOME } : {}),
  };
  const child = spawn(node, [harness, file], { uid: UID, gid: UID, env, cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] });
  let raw = '';
  child.stdout.on('data', (c: Buffer) => (raw += c.toString()));
  child.stderr.on('data', (c: Buffer) => (raw += c.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const lines = raw
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
  return { lines, raw, code, tmp };
}

const outsidePaths = (tmp: string) => [join(tmp, 'pe_evil'), join(tmp, 'polyeval-cache', 'pe_evil'), join(home, 'pe_evil'), join(image, 'pe_evil')];

function jobOf(c: HostileCase, probe: Probe): ExecutionJob {
  if (c.scorer === 'unit-tests')
    return { scorer: 'unit-tests', task: unitTask(c.language, EARLY_EXIT[c.language].test), language: c.language, code: c.code(probe) };
  const output = c.attack === 'reading the expected output' ? 'EXPECTED_SECRET\n' : '3\n';
  return {
    scorer: 'io-tests',
    task: sumTask({ tests: [{ input: '1 2\n', output }], ...(c.timeLimitMs ? { timeLimitMs: c.timeLimitMs } : {}) }),
    language: c.language,
    code: c.code(probe),
  };
}

const probeFor = (tmp: string): Probe => ({
  port: (server.address() as { port: number }).port,
  secretName: 'AWS_SECRET_ACCESS_KEY',
  outside: outsidePaths(tmp),
});

describe('the hostile suite as the execute Lambda runs it', () => {
  it.each([
    ['python, c and cpp', 'native', (language: string) => ['python', 'c', 'cpp'].includes(language)],
    ['kotlin', 'kotlin', (language: string) => language === 'kotlin'],
    ['java', 'java', (language: string) => language === 'java'],
    ['javascript', 'javascript', (language: string) => language === 'javascript'],
  ] as const)(
    'contains every attack in %s: no credential or canary, no listener, no write outside, no survivor',
    async (_languages, tmpName, pick) => {
      const cases = HOSTILE_CASES.filter((c) => pick(c.language));
      const probe = probeFor(join(dirs.root, `tmp-${tmpName}`));
      const { lines, raw, code, tmp } = await invoke(
        tmpName,
        cases.map((c, i) => ({ id: String(i), job: jobOf(c, probe) })),
      );
      expect(code, raw.slice(-2000)).toBe(0);
      expect(lines[0]?.isolation?.label).toBe('rlimits+seccomp+landlock');
      expect(lines[0]?.isolation?.exposures).toEqual([]);
      for (const [i, c] of cases.entries()) {
        const outcome = lines.find((l) => l.id === String(i) && l.outcome)?.outcome;
        expect(c.verdicts, `${c.attack} in ${c.language}: ${JSON.stringify(outcome)}`).toContain(outcome?.verdict);
        expect(lines.find((l) => l.id === String(i) && l.check)?.check, `${c.attack} in ${c.language}`).toMatchObject({ clean: true });
      }
      expect(raw).not.toContain(canary);
      expect(connections).toBe(0);
      for (const path of outsidePaths(tmp)) expect(existsSync(path), path).toBe(false);
      expect(await settledProcesses(dirs.root)).toEqual([]);
    },
    1_200_000,
  );

  it('discards the container when a program writes outside on a kernel without Landlock, and the next invocation starts clean', async () => {
    const python = (attack: string) => HOSTILE_CASES.find((c) => c.language === 'python' && c.attack === attack) as HostileCase;
    const probe = probeFor(join(dirs.root, 'tmp-nolandlock'));
    const jobs = [
      'reading the parent environment and /proc/<pid>/environ',
      'a TCP connection to a listening loopback port',
      'writing outside the working directory',
      'a background child outliving its parent',
    ].map((attack) => ({ id: attack, job: jobOf(python(attack), probe) }));
    const first = await invoke('nolandlock', jobs, { POLYEVAL_CONFINE: 'seccomp' });
    expect(first.lines[0]?.isolation?.label).toBe('rlimits+seccomp');
    expect(first.lines[0]?.isolation?.exposures).toEqual(['files']);
    // The environment and the listener stay out of reach without Landlock (non-dumpable node, seccomp).
    expect(first.lines.find((l) => l.id === jobs[0]?.id && l.outcome)?.outcome?.verdict).toBe('OK');
    expect(first.lines.find((l) => l.id === jobs[1]?.id && l.outcome)?.outcome?.verdict).toBe('OK');
    expect(first.raw).not.toContain(canary);
    expect(connections).toBe(0);
    // The write happens, the check sees it, the container is discarded before the next item.
    expect(first.lines.find((l) => l.discarded)?.report?.changes.join('\n')).toContain('pe_evil');
    expect(first.code).toBe(70);
    expect(first.lines.some((l) => l.id === jobs[3]?.id)).toBe(false);
    expect(await settledProcesses(dirs.root)).toEqual([]);
    const next = await invoke(
      'next',
      [{ id: 'sum', job: { scorer: 'io-tests', task: sumTask(), language: 'python', code: 'a, b = map(int, input().split())\nprint(a + b)\n' } }],
      { POLYEVAL_CONFINE: 'seccomp' },
    );
    expect(next.lines.find((l) => l.outcome)?.outcome?.verdict).toBe('OK');
    expect(next.lines.find((l) => l.check)?.check?.clean).toBe(true);
    expect(readFileSync(join(home, '.aws', 'credentials'), 'utf8')).toContain(canary); // untouched
  }, 600_000);

  it('empties the builds a program planted in and locked (chmod 0300) on a kernel without Landlock: the next sample does not find it', async () => {
    // The builds are outside the after-item watch (container-sandbox.ts): emptying them is the check.
    // A program of the Lambda user can chmod the directory it cannot otherwise protect; a build
    // left there under a predicted key would be taken from the cache by a later sample.
    const builds = join(dirs.root, 'tmp-planted', 'polyeval-cache', 'builds');
    const plant = [
      'import os',
      `b = ${JSON.stringify(builds)}`,
      "os.makedirs(os.path.join(b, 'pe_planted'), exist_ok=True)",
      "open(os.path.join(b, 'pe_planted', 'meta.json'), 'w').write('{}')",
      'os.chmod(b, 0o300)',
      'a, c = map(int, input().split())',
      'print(a + c)',
      '',
    ].join('\n');
    // The next sample answers right only when it finds no plant (the files the harness's next build lies beside).
    const sum = [
      'import os',
      `planted = os.path.exists(${JSON.stringify(join(builds, 'pe_planted'))})`,
      'a, b = map(int, input().split())',
      'print(-1 if planted else a + b)',
      '',
    ].join('\n');
    const result = await invoke(
      'planted',
      [
        { id: 'plant', job: { scorer: 'io-tests', task: sumTask(), language: 'python', code: plant } },
        { id: 'next', job: { scorer: 'io-tests', task: sumTask(), language: 'python', code: sum } },
      ],
      { POLYEVAL_CONFINE: 'seccomp' },
    );
    expect(result.code, result.raw.slice(-2000)).toBe(0);
    expect(result.lines.find((l) => l.id === 'plant' && l.outcome)?.outcome?.verdict).toBe('OK'); // the plant happened
    expect(result.lines.find((l) => l.id === 'plant' && l.check)?.check?.clean).toBe(true);
    expect(result.lines.find((l) => l.id === 'next' && l.outcome)?.outcome?.verdict).toBe('OK');
  }, 600_000);

  it('discards the container when a program leaves in the builds what cannot be removed (a read-only folder with a file in it)', async () => {
    const builds = join(dirs.root, 'tmp-lockedplant', 'polyeval-cache', 'builds');
    const plant = [
      'import os',
      `d = os.path.join(${JSON.stringify(builds)}, 'pe_planted')`,
      'os.makedirs(d, exist_ok=True)',
      "open(os.path.join(d, 'meta.json'), 'w').write('{}')",
      'os.chmod(d, 0o500)',
      'a, c = map(int, input().split())',
      'print(a + c)',
      '',
    ].join('\n');
    const sum = 'a, b = map(int, input().split())\nprint(a + b)\n';
    const result = await invoke(
      'lockedplant',
      [
        { id: 'plant', job: { scorer: 'io-tests', task: sumTask(), language: 'python', code: plant } },
        { id: 'next', job: { scorer: 'io-tests', task: sumTask(), language: 'python', code: sum } },
      ],
      { POLYEVAL_CONFINE: 'seccomp' },
    );
    expect(result.lines.find((l) => l.id === 'plant' && l.outcome)?.outcome?.verdict).toBe('OK');
    expect(result.lines.find((l) => l.discarded)?.report?.changes.join('\n')).toContain('the builds could not be emptied');
    expect(result.code).toBe(70);
    expect(result.lines.some((l) => l.id === 'next')).toBe(false);
  }, 600_000);

  it.each([
    ['a readable (dumpable) node without Landlock', process.execPath, { POLYEVAL_CONFINE: 'seccomp' }, /credentials/u],
    ['no seccomp filter', join(dirs.root, 'node'), { POLYEVAL_CONFINE: 'none' }, /credentials and network/u],
  ] as const)(
    'refuses to run any program with %s',
    async (_what, node, env, exposed) => {
      const job = { scorer: 'io-tests' as const, task: sumTask(), language: 'python', code: 'print(3)\n' };
      const result = await invoke(`refused-${env.POLYEVAL_CONFINE}-${node === process.execPath ? 'dumpable' : 'nodump'}`, [{ id: 'sum', job }], env, node);
      expect(result.code).not.toBe(0);
      expect(result.raw).toMatch(/refusing to run model code here/u);
      expect(result.raw).toMatch(exposed);
      expect(result.lines.some((l) => l.outcome)).toBe(false);
    },
    300_000,
  );
});
