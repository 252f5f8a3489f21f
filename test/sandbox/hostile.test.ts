import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxExecutor, type SandboxExecutor } from '#sandbox/index.ts';
import { leftoverWork, scratch, settledProcesses, sumTask, unitTask } from './helpers.ts';
import { EARLY_EXIT, HOSTILE_CASES, type HostileCase, type Probe } from '#core/selftest/hostile-programs.ts';

const dirs = scratch('hostile');
const SECRET_NAME = 'POLYEVAL_TEST_SECRET';
const secret = `parent-secret-${randomBytes(8).toString('hex')}`;
let executor: SandboxExecutor;
let server: Server;
let connections = 0;
// A DNS server on loopback that answers every query: a probe that reaches it has sent a name out.
let resolver: Socket;
let queries = 0;
const probe: Probe = { port: 0, secretName: SECRET_NAME, outside: [`${dirs.cacheDir}/pe_evil`, `${dirs.root}/pe_evil`, '/usr/pe_evil', '/tmp/pe_evil_host'] };

beforeAll(async () => {
  process.env[SECRET_NAME] = secret;
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  probe.port = (server.address() as { port: number }).port;
  resolver = createSocket('udp4', (message, from) => {
    queries++;
    resolver.send(message, from.port, from.address);
  });
  await new Promise<void>((r) => resolver.bind(0, '127.0.0.1', r));
  probe.dns = [{ host: '127.0.0.1', port: resolver.address().port }];
  executor = await createSandboxExecutor({ concurrency: 2, cacheDir: dirs.cacheDir, workRoot: dirs.workRoot });
}, 600_000);

afterAll(async () => {
  await executor?.close();
  server?.close();
  resolver?.close();
  delete process.env[SECRET_NAME];
  rmSync(dirs.root, { recursive: true, force: true });
});

function run(c: HostileCase) {
  if (c.scorer === 'unit-tests') {
    return executor.execute({ scorer: 'unit-tests', task: unitTask(c.language, EARLY_EXIT[c.language].test), language: c.language, code: c.code(probe) });
  }
  const output = c.attack === 'reading the expected output' ? 'EXPECTED_SECRET\n' : '3\n';
  return executor.execute({
    scorer: 'io-tests',
    task: sumTask({ tests: [{ input: '1 2\n', output }], ...(c.timeLimitMs ? { timeLimitMs: c.timeLimitMs } : {}) }),
    language: c.language,
    code: c.code(probe),
  });
}

describe('hostile programs', () => {
  it('runs under bubblewrap on this machine', () => {
    expect(executor.isolation).toBe('bwrap');
  });

  it.each(HOSTILE_CASES.map((c) => [c.attack, c.language, c] as const))(
    'contains %s in %s',
    async (_attack, _language, c) => {
      const outcome = await run(c);
      expect(c.verdicts, JSON.stringify(outcome).slice(0, 600)).toContain(outcome.verdict);
      expect(JSON.stringify(outcome)).not.toContain(secret);
      expect(await settledProcesses(dirs.root)).toEqual([]);
      expect(await leftoverWork(dirs.workRoot)).toEqual([]);
      for (const path of probe.outside) expect(existsSync(path)).toBe(false);
      for (const build of readdirSync(`${dirs.cacheDir}/builds`)) expect(existsSync(`${dirs.cacheDir}/builds/${build}/pe_evil`)).toBe(false);
      expect(connections).toBe(0);
      expect(queries).toBe(0);
    },
    300_000,
  );

  it('keeps the harness responsive afterwards', async () => {
    const outcome = await executor.execute({
      scorer: 'io-tests',
      task: sumTask(),
      language: 'python',
      code: 'a, b = map(int, input().split())\nprint(a + b)\n',
    });
    expect(outcome.verdict).toBe('OK');
  }, 120_000);
});
