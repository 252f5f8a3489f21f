// The hostile suite through the judge and the untrusted runner function, as AWS runs them: the
// judge (this process) holds AWS credentials and invokes the runner through the real Lambda
// client; a local Lambda service (test/fakes/lambda-service.ts) starts the runner's own
// process (functions/runner/main.ts, bundled as the images bundle it) as an unprivileged uid,
// with bubblewrap unusable, node execute-only, the supervisor prebuilt read-only, and only what
// Lambda gives a function: the Runtime API address and the runner role's own credentials.
// The runner's answers carry no credential or canary, no program reaches a listener or writes
// outside, nothing survives, the requests carry no expected output, and a runner whose program
// left something behind ends its environment so the next invocation starts clean.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionJob } from '#core/ports.ts';
import { LambdaInvoker } from '#aws/lambda-invoker.ts';
import { LAMBDA_RUNNER_ISOLATION, LambdaProgramRunner } from '#app/cloud/lambda-runner.ts';
import { continuationOf, HandedOff, handoffInvoke, withHandoff, type RecordedAnswer } from '#app/cloud/runner-handoff.ts';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig, startMoto } from '../support/moto.ts';
import { createSandboxExecutor, type SandboxExecutor } from '#sandbox/index.ts';
import { buildSupervisor } from '#sandbox/supervisor.ts';
import { FakeLambdaService } from '../fakes/lambda-service.ts';
import { scratch, settledProcesses, sumTask, unitTask } from './helpers.ts';
import { EARLY_EXIT, HOSTILE_CASES, type HostileCase, type Probe } from '#core/selftest/hostile-programs.ts';

const UID = 47_124; // the "Lambda user" of the runner, used by nothing else on this machine
const dirs = scratch('runner');
const canary = randomBytes(8).toString('hex');
const JUDGE_KEYS = { accessKeyId: `ASIAJUDGE${canary}`, secretAccessKey: `judge-secret-${canary}`, sessionToken: `judge-token-${canary}` };
const RUNNER_ENV_KEYS = {
  AWS_ACCESS_KEY_ID: `ASIARUNNER${canary}`,
  AWS_SECRET_ACCESS_KEY: `runner-secret-${canary}`,
  AWS_SESSION_TOKEN: `runner-token-${canary}`,
};
const image = join(dirs.root, 'image-cache');
const home = join(dirs.root, 'home');
const bundle = resolve('node_modules/.cache/polyeval-runner/runner.mjs');
const FAKE_BWRAP =
  '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n';
let listener: Server;
let connections = 0;
const services: FakeLambdaService[] = [];
const judges: SandboxExecutor[] = [];
const savedEnv = { ...process.env };

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error('this test emulates the Lambda user and must run as root (as CI does)');
  // The judge's process holds credentials, as the execute function's does.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: JUDGE_KEYS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: JUDGE_KEYS.secretAccessKey,
    AWS_SESSION_TOKEN: JUDGE_KEYS.sessionToken,
  });
  mkdirSync(image, { recursive: true });
  await buildSupervisor(image);
  copyFileSync(process.execPath, join(dirs.root, 'node'));
  chmodSync(join(dirs.root, 'node'), 0o711);
  writeFileSync(join(dirs.root, 'bwrap'), FAKE_BWRAP, { mode: 0o755 });
  mkdirSync(home, { recursive: true, mode: 0o755 }); // root's: as on Lambda, only /tmp is writable
  await build({
    entryPoints: ['functions/runner/main.ts'],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['kotlin-compiler'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'warning',
  });
  // As scripts/bundle-images.mjs does: the supervisor's C source beside the bundle (the sandbox names its build by it).
  copyFileSync('layers/sandbox/pe-supervisor.c', join(dirname(bundle), 'pe-supervisor.c'));
  // … and Python's zygote, which the runner starts from the script beside its bundle.
  copyFileSync('layers/sandbox/languages/python-zygote.py', join(dirname(bundle), 'python-zygote.py'));
  listener = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
}, 300_000);

afterAll(async () => {
  await Promise.all(judges.map((j) => j.close()));
  await Promise.all(services.map((s) => s.close()));
  listener?.close();
  process.env = savedEnv;
  rmSync(dirs.root, { recursive: true, force: true });
});

/** A Lambda service for one runner function (its /tmp persists across environments) and the judge calling it. */
async function deploy(
  name: string,
  extraEnv: Record<string, string> = {},
  handoff?: { destination: (record: Record<string, unknown>) => Promise<void> },
): Promise<{ service: FakeLambdaService; judge: SandboxExecutor; tmp: string; invoker: LambdaInvoker }> {
  const tmp = join(dirs.root, `tmp-${name}`);
  mkdirSync(tmp);
  chmodSync(tmp, 0o777);
  const service = new FakeLambdaService({
    ...(handoff ? { destination: handoff.destination } : {}),
    start: (runtimeApi) =>
      spawn(join(dirs.root, 'node'), [bundle], {
        uid: UID,
        gid: UID,
        cwd: tmp,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...RUNNER_ENV_KEYS,
          ...extraEnv,
          ...(process.env.JAVA_HOME ? { JAVA_HOME: process.env.JAVA_HOME } : {}),
          AWS_LAMBDA_RUNTIME_API: runtimeApi,
          AWS_LAMBDA_FUNCTION_NAME: `runner-${name}`,
          PATH: '/usr/local/bin:/usr/bin:/bin',
          HOME: home,
          TMPDIR: tmp,
          POLYEVAL_CACHE: image,
          POLYEVAL_BWRAP: join(dirs.root, 'bwrap'),
        },
      }),
  });
  services.push(service);
  const { endpoint } = await service.listen();
  const invoker = new LambdaInvoker({
    client: new LambdaClient({ endpoint, region: 'us-east-1', credentials: JUDGE_KEYS, maxAttempts: 1 }),
    functionName: `runner-${name}`,
  });
  const judge = await createSandboxExecutor({
    concurrency: 1,
    cacheDir: join(dirs.root, `judge-cache-${name}`),
    workRoot: join(dirs.root, `judge-work-${name}`),
    runner: new LambdaProgramRunner({
      invoke: handoff ? handoffInvoke((payload) => invoker.invoke(payload)) : (payload) => invoker.invoke(payload),
      functionName: `runner-${name}`,
    }),
    runnerIsolation: LAMBDA_RUNNER_ISOLATION,
  });
  judges.push(judge);
  return { service, judge, tmp, invoker };
}

const outsidePaths = (tmp: string) => [join(tmp, 'pe_evil'), join(tmp, 'polyeval-cache', 'pe_evil'), join(home, 'pe_evil'), join(image, 'pe_evil')];
const probeFor = (tmp: string): Probe => ({
  port: (listener.address() as { port: number }).port,
  secretName: 'AWS_SECRET_ACCESS_KEY',
  outside: outsidePaths(tmp),
});

function jobOf(c: HostileCase, probe: Probe): ExecutionJob {
  if (c.scorer === 'unit-tests')
    return { scorer: 'unit-tests', task: unitTask(c.language, EARLY_EXIT[c.language].test), language: c.language, code: c.code(probe) };
  const output = c.attack === 'reading the expected output' ? 'EXPECTED_SECRET\n' : '3\n';
  return { scorer: 'io-tests', task: sumTask({ tests: [{ input: '1 2\n', output }] }), language: c.language, code: c.code(probe) };
}

const integrityOf = (answer: string) => (JSON.parse(answer) as { integrity?: { clean: boolean } }).integrity;

describe('the hostile suite through the judge and the runner function', () => {
  it.each([
    ['python, c and cpp', 'hostile', ['python', 'c', 'cpp']],
    ['kotlin', 'hostile-kotlin', ['kotlin']],
  ] as const)(
    'contains every attack in %s: no credential or canary, no listener, no write outside, no survivor, no expected output sent',
    async (_languages, name, languages) => {
      const { service, judge, tmp } = await deploy(name);
      const probe = probeFor(tmp);
      const cases = HOSTILE_CASES.filter((c) => (languages as readonly string[]).includes(c.language));
      for (const c of cases) {
        const outcome = await judge.execute(jobOf(c, probe));
        expect(c.verdicts, `${c.attack} in ${c.language}: ${JSON.stringify(outcome).slice(0, 600)}`).toContain(outcome.verdict);
        expect(outcome.isolation, c.attack).toBe('lambda-runner+rlimits+seccomp+landlock');
      }
      // One environment served everything: every item left it clean.
      expect(service.environments).toHaveLength(1);
      expect(service.answers.map(integrityOf).every((i) => i?.clean === true)).toBe(true);
      const seen = [...service.payloads, ...service.answers, ...service.environments.map((e) => e.output)].join('\n');
      expect(seen).not.toContain(canary); // neither the judge's keys nor the runner's own
      expect(service.payloads.join('\n')).not.toContain('EXPECTED_SECRET');
      expect(connections).toBe(0);
      for (const path of outsidePaths(tmp)) expect(existsSync(path), path).toBe(false);
      await service.close();
      expect(await settledProcesses(dirs.root)).toEqual([]);
    },
    1_200_000,
  );

  it('sends the runner the program and the test inputs, never an expected output', async () => {
    const { service, judge } = await deploy('payload');
    const secret = `expected-${randomBytes(6).toString('hex')}`;
    const task = sumTask({
      tests: [
        { input: '1 2\n', output: `${secret}\n` },
        { input: '40 2\n', output: '42\n' },
      ],
    });
    const outcome = await judge.execute({ scorer: 'io-tests', task, language: 'python', code: 'a, b = map(int, input().split())\nprint(a + b)\n' });
    expect(outcome.verdict).toBe('WA'); // judged by the judge against what the runner never saw
    expect(outcome.testsPassed).toBe(1);
    expect(service.payloads).toHaveLength(1);
    const request = JSON.parse(service.payloads[0] as string) as { program: unknown; runs: { stdin: string; files: { name: string; content: string }[] }[] };
    expect(request.runs.map((r) => r.stdin)).toEqual(['1 2\n', '40 2\n']);
    expect(request.runs.map((r) => r.files)).toEqual([[{ name: 'sum.in', content: '1 2\n' }], [{ name: 'sum.in', content: '40 2\n' }]]);
    expect(service.payloads[0]).not.toContain(secret);
    expect(service.payloads[0]).not.toContain('42\\n"'); // the second expected output either
  }, 300_000);

  it('judges every Python sample of a warm environment as the first: its zygote still reads the builds after each after-item check', async () => {
    // The after-item check empties the builds (a program shares this uid and could plant one); made
    // again as a new directory, it was out of the zygote's Landlock rule, and from the second sample
    // on every program died reading its own main.py (PermissionError: RE).
    const { service, judge } = await deploy('warm-python');
    const verdicts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const code = `a, b = map(int, input().split())\nprint(a + b)  # sample ${i}\n`;
      verdicts.push((await judge.execute({ scorer: 'io-tests', task: sumTask(), language: 'python', code })).verdict);
    }
    expect(verdicts).toEqual(['OK', 'OK', 'OK']);
    expect(service.environments).toHaveLength(1);
  }, 300_000);

  it("hands off asynchronously: the runner's record reaches an SQS queue (moto_server) and the judge's continuation gets the synchronous verdict", async () => {
    const judgeEnv = { ...process.env };
    const moto = await startMoto(); // sets fake AWS keys in this process: the judge's are put back after
    try {
      const sqs = new SQSClient(awsClientConfig(moto.endpoint));
      const { QueueUrl: queueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: 'runner-answers' }));
      // Lambda delivers the destination record as the body of one SQS message.
      const destination = async (record: Record<string, unknown>) => {
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(record) }));
      };
      const { service, judge, invoker } = await deploy('handoff', {}, { destination });
      const secret = `expected-${randomBytes(6).toString('hex')}`;
      const task = sumTask({
        tests: [
          { input: '1 2\n', output: `${secret}\n` },
          { input: '40 2\n', output: '42\n' },
        ],
      });
      const job: ExecutionJob = { scorer: 'io-tests', task, language: 'python', code: 'a, b = map(int, input().split())\nprint(a + b)\n' };
      const message = { item: 'execute message' };
      let answers: RecordedAnswer[] = [];
      let handoffs = 0;
      let outcome;
      const records: { requestContext: { condition: string } }[] = [];
      for (;;) {
        try {
          outcome = await withHandoff(message, answers, () => judge.execute(job));
          break;
        } catch (error) {
          if (!(error instanceof HandedOff)) throw error;
          handoffs += 1;
          await invoker.invokeEvent(JSON.stringify(error.event)); // the judge returns here; the queue brings the item back
          let body: string | undefined;
          for (let polls = 0; body === undefined && polls < 30; polls++) {
            const got = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 2, MaxNumberOfMessages: 1 }));
            const m = got.Messages?.[0];
            if (m) {
              body = m.Body;
              await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle }));
            }
          }
          expect(body, 'an invocation record on the queue').toBeDefined();
          const record = JSON.parse(body as string) as { requestContext: { condition: string } };
          records.push(record);
          ({ answers } = continuationOf(record));
        }
      }
      expect(outcome).toMatchObject({ verdict: 'WA', testsPassed: 1, testsTotal: 2, isolation: 'lambda-runner+rlimits+seccomp+landlock' });
      expect(handoffs).toBe(1);
      expect(records.map((r) => r.requestContext.condition)).toEqual(['Success']);
      expect(service.invocationTypes).toEqual(['Event']); // the judge never waited on the runner
      expect(service.payloads.join('\n')).not.toContain(secret);
      expect(service.payloads.join('\n')).not.toContain(canary);
      await service.close();
    } finally {
      await moto.stop();
      process.env = judgeEnv;
    }
  }, 300_000);

  it('ends its environment when a program writes outside on a kernel without Landlock; the next invocation starts clean', async () => {
    const { service, judge, tmp } = await deploy('nolandlock', { POLYEVAL_CONFINE: 'seccomp' });
    const write = HOSTILE_CASES.find((c) => c.language === 'python' && c.attack === 'writing outside the working directory') as HostileCase;
    const first = await judge.execute(jobOf(write, probeFor(tmp)));
    expect(first.verdict).toBe('OK');
    expect(first.isolation).toBe('lambda-runner+rlimits+seccomp');
    expect(integrityOf(service.answers[0] as string)).toMatchObject({ clean: false });
    expect(existsSync(join(tmp, 'pe_evil'))).toBe(true); // the write happened, the check saw it
    // The answer was posted, then the runtime ended itself (before asking for the next event).
    await waitFor(() => service.environments[0]?.exit !== undefined);
    expect(service.environments[0]?.exit).toBe(75);
    const next = await judge.execute({ scorer: 'io-tests', task: sumTask(), language: 'python', code: 'a, b = map(int, input().split())\nprint(a + b)\n' });
    expect(next.verdict).toBe('OK');
    expect(service.environments).toHaveLength(2);
    expect(existsSync(join(tmp, 'pe_evil'))).toBe(false); // the new environment emptied the /tmp the reset kept
    expect(integrityOf(service.answers[1] as string)).toMatchObject({ clean: true });
    expect(service.environments.map((e) => e.output).join('\n')).not.toContain(canary);
  }, 600_000);
});

describe('toolchain options through the runner function', () => {
  // Multi-dollar interpolation (`$$"…"`) is Kotlin 2.2: under `-language-version 2.0` it does
  // not compile (as in toolchain-options.test.ts). The runner compiles, so the job's option
  // must reach it with the request and apply to that compile only.
  const test = 'fun main() {\n    if (price(3) != "$3") throw AssertionError(price(3))\n}\n';
  const job = (languageVersion?: string): ExecutionJob => ({
    scorer: 'unit-tests',
    task: unitTask('kotlin', test, 'price'),
    language: 'kotlin',
    code: 'fun price(n: Int): String = $$"$$$n"\n',
    ...(languageVersion ? { toolchain: { languageVersion } } : {}),
  });

  it("compiles each Kotlin job in the runner with the job's own language version", async () => {
    const { service, judge } = await deploy('toolchain-kotlin');
    const old = await judge.execute(job('2.0'));
    const current = await judge.execute(job('2.2'));
    const plain = await judge.execute(job());
    expect(old).toMatchObject({ verdict: 'CE', isolation: 'lambda-runner+rlimits+seccomp+landlock' });
    expect(old.error).toMatch(/language version|2\.2/u);
    expect(current).toMatchObject({ verdict: 'OK', testsPassed: 1 });
    expect(plain).toMatchObject({ verdict: 'OK', testsPassed: 1 });
    const sent = service.payloads.map((p) => (JSON.parse(p) as { toolchain?: unknown }).toolchain);
    expect(sent).toEqual([{ languageVersion: '2.0' }, { languageVersion: '2.2' }, undefined]);
    await service.close();
  }, 1_200_000);
});

async function waitFor(condition: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
}
