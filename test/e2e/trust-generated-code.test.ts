// The local rule (DESIGN §7): as a non-root user without bubblewrap, on a machine whose
// sandbox cannot keep credentials, files and network from programs, `polyeval run` refuses
// model-written code unless --trust-generated-code; the dataset's reference solutions run.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { keys } from '#core/run/keys.ts';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, tempHome, type CliResult } from '../support/cli.ts';

const UID = 65534;
const root = tempHome('polyeval-trust-');
chmodSync(root, 0o755); // the unprivileged user reads the replay file and the bubblewrap stand-in
const userHome = join(root, 'user');
const canary = `canary-${randomBytes(8).toString('hex')}`;
const replay = join(root, 'hostile.jsonl');
const FAKE_BWRAP = '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n';

// Reads the user's AWS credentials file and its parent's environment into its answer.
const HOSTILE = `import os\nleak = ""\nfor p in [os.path.expanduser("~/.aws/credentials"), f"/proc/{os.getppid()}/environ"]:\n    try:\n        leak += open(p, errors="ignore").read()\n    except OSError:\n        pass\nopen("suma.out", "w").write(leak or "0\\n")\n`;

beforeAll(() => {
  if (process.getuid?.() !== 0) throw new Error('this test switches to an unprivileged user and must run as root (as CI does)');
  mkdirSync(join(userHome, '.aws'), { recursive: true });
  writeFileSync(join(userHome, '.aws', 'credentials'), `[default]\naws_secret_access_key = ${canary}\n`, { mode: 0o600 });
  for (const p of [userHome, join(userHome, '.aws'), join(userHome, '.aws', 'credentials')]) chownSync(p, UID, UID);
  writeFileSync(join(root, 'bwrap'), FAKE_BWRAP, { mode: 0o755 });
  writeFileSync(replay, `${JSON.stringify({ task_id: 'rocode-sample/001-suma', completion: HOSTILE, language: 'python', sample: 0 })}\n`);
});

/** `polyeval run` as an unprivileged user with bubblewrap failing, in a fresh --home. */
function runAsUser(name: string, args: string[], env: Record<string, string> = {}): Promise<CliResult & { home: string }> {
  const home = join(root, `home-${name}`);
  const tmp = join(root, `tmp-${name}`);
  for (const d of [home, tmp]) {
    mkdirSync(d);
    chownSync(d, UID, UID);
  }
  const child = spawn(process.execPath, [CLI, ...args, '--home', home], {
    cwd: ROOT,
    uid: UID,
    gid: UID,
    env: {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: userHome,
      TMPDIR: tmp,
      XDG_CACHE_HOME: join(tmp, 'cache'),
      NO_COLOR: '1',
      POLYEVAL_BWRAP: join(root, 'bwrap'),
      AWS_SECRET_ACCESS_KEY: `env-${canary}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr, home })));
}

const hostileRun = ['run', '-b', 'sample/rocode', '-m', `replay:${replay}`, '--language', 'python', '--limit', '1', '-n', '1', '--json', '-q'];

describe('model-written code on a sandbox that exposes credentials, files and network', () => {
  it('is refused with exit 2, a message naming what is exposed, and no run recorded', async () => {
    const result = await runAsUser('refused', hostileRun, { POLYEVAL_CONFINE: 'none' });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/refusing to execute code written by/u);
    expect(result.stderr).toMatch(/credentials[\s\S]*files[\s\S]*network/u);
    expect(result.stderr).toContain('--trust-generated-code');
    expect(existsSync(join(result.home, 'store', 'runs')) ? readdirSync(join(result.home, 'store', 'runs')) : []).toEqual([]);
  }, 300_000);

  it('runs with --trust-generated-code and records the isolation it ran under', async () => {
    const result = await runAsUser('trusted', [...hostileRun, '--trust-generated-code'], { POLYEVAL_CONFINE: 'none' });
    expect(result.code, result.stderr).toBe(0);
    const run = JSON.parse(result.stdout) as { run_id: string; items: number };
    expect(run.items).toBe(1);
    const items = join(result.home, 'store', keys.itemsPrefix(run.run_id));
    const [taskDir] = readdirSync(items);
    const item = JSON.parse(readFileSync(join(items, taskDir ?? '', '0.json'), 'utf8')) as { outcome: { isolation: string } };
    expect(item.outcome.isolation).toBe('rlimits');
  }, 300_000);

  it('is what polyeval doctor names, credential exposure first', async () => {
    const result = await runAsUser('doctor', ['doctor'], { POLYEVAL_CONFINE: 'none' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/EXPOSED to programs: credentials: .*environ/u);
    expect(result.stdout).toMatch(/EXPOSED to programs: files/u);
    expect(result.stdout).toMatch(/EXPOSED to programs: network/u);
    expect(result.stdout).toContain('model-written code is refused unless --trust-generated-code (exposed: credentials, files, network)');
  }, 300_000);

  it('runs the dataset reference solutions without the flag', async () => {
    const result = await runAsUser(
      'reference',
      ['run', '-b', 'sample/rocode', '-m', 'reference', '--language', 'python', '--limit', '1', '-n', '1', '--json', '-q'],
      { POLYEVAL_CONFINE: 'none' },
    );
    expect(result.code, result.stderr).toBe(0);
  }, 300_000);
});

describe('model-written code where seccomp and Landlock confine it', () => {
  it('runs without the flag and cannot read the credentials', async () => {
    const result = await runAsUser('confined', hostileRun);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain(canary);
    const run = JSON.parse(result.stdout) as { verdicts: Record<string, number> };
    expect(run.verdicts).toMatchObject({ WA: 1 });
  }, 300_000);
});
