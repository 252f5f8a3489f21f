// `polyeval remote …` (the built CLI) against the real api handler on moto, through a local
// HTTP server that plays API Gateway: it checks each request's SigV4 signature (recomputed
// with the test credentials) and turns the request into an HTTP API v2 event.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultsQuery } from '#core/ports.ts';
import { apiEvent } from '../integration/cloud/api-events.ts';
import { drive, lambdaContext, startCloud, type Cloud } from '../integration/cloud/cloud-harness.ts';
import type { Manifest } from '#core/run/manifest.ts';
import { parseJson, runCli, tempHome } from '../support/cli.ts';
import { favourDigit, startOpenAiServer, type OpenAiServer } from '../fakes/wire-servers/index.ts';
import { keys } from '#core/run/keys.ts';
import { FAKE_AWS } from '../support/moto.ts';
import { boundSql } from '../fakes/bound-sql.ts';

const SIGV4 = /^AWS4-HMAC-SHA256 Credential=test\/(\d{8})\/us-east-1\/execute-api\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

let cloud: Cloud;
let server: Server;
let api: string;
const sql: string[] = [];
const rejected: string[] = [];
/** The run the first test starts: the fake Athena answers it as the board's best run. */
let startedRun = 'r1';

const results: ResultsQuery = {
  sql: (query) => {
    sql.push(boundSql(query));
    return Promise.resolve([{ model: 'reference', run_id: startedRun, value: 1, ci_low: 1, ci_high: 1, n: 3, runs: 1 }]);
  },
  close: () => Promise.resolve(),
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

/** Recomputes the signature over the headers the client signed; undefined when it matches. */
async function signatureProblem(req: IncomingMessage, url: URL, body: string): Promise<string | undefined> {
  const match = SIGV4.exec(req.headers.authorization ?? '');
  if (!match) return `not a SigV4 execute-api Authorization header: ${req.headers.authorization ?? '(none)'}`;
  const signedHeaders = (match[2] ?? '').split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) return `SignedHeaders lacks host or x-amz-date: ${match[2]}`;
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = String(req.headers[name] ?? '');
  const amzDate = headers['x-amz-date'] ?? '';
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const signer = new SignatureV4({
    service: 'execute-api',
    region: FAKE_AWS.region,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    sha256: Sha256,
  });
  const expected = await signer.sign(
    new HttpRequest({
      method: req.method ?? 'GET',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      ...(body === '' ? {} : { body }),
    }),
    { signingDate },
  );
  return expected.headers.authorization === req.headers.authorization ? undefined : 'the signature does not match the request';
}

beforeAll(async () => {
  cloud = await startCloud({ results });
  server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
      const body = await readBody(req);
      const problem = await signatureProblem(req, url, body);
      if (problem !== undefined) {
        rejected.push(problem);
        res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'Forbidden' }));
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const event = apiEvent(req.method ?? 'GET', url.pathname, {
        ...(body === '' ? {} : { body }),
        query: Object.fromEntries(url.searchParams),
        headers,
      });
      const response = await cloud.api(event, lambdaContext('api'));
      res.writeHead(response.statusCode ?? 500, { 'content-type': 'application/json' }).end(response.body ?? '');
    })().catch((error: unknown) => res.writeHead(502).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await cloud?.stop();
});

const env = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1', AWS_EC2_METADATA_DISABLED: 'true' };

describe('polyeval remote', () => {
  it('starts a run, follows it to completion and reads its metrics, every request signed', async () => {
    const started = await runCli(['remote', 'run', '-b', 'sample/abricot', '-m', 'reference', '--limit', '6', '--api', api, '--json'], { env });
    expect(started.code, started.stderr).toBe(0);
    const runId = String(parseJson(started).run_id);
    expect(runId).toMatch(/^abricot-/);
    startedRun = runId;

    await drive(cloud);

    const status = await runCli(['remote', 'status', runId, '--api', api, '--json'], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(parseJson<{ run: { status: string; recorded: number } }>(status).run).toMatchObject({ status: 'completed', recorded: 6 });

    const metrics = await runCli(['remote', 'metrics', runId, '--api', api, '--json'], { env });
    expect(metrics.code, metrics.stderr).toBe(0);
    const summary = parseJson<{ metrics: Record<string, { value: number }> }>(metrics);
    expect(summary.metrics['pearson/subtask=abstractness']?.value).toBeCloseTo(1, 10);

    const table = await runCli(['remote', 'metrics', runId, '--api', api], { env });
    expect(table.stdout).toMatch(/pearson\s+subtask=abstractness\s+1\.000/);

    const list = await runCli(['remote', 'status', '--api', api, '--json'], { env });
    expect(parseJson<{ runs: { runId: string }[] }>(list).runs.map((r) => r.runId)).toContain(runId);
    expect(rejected).toEqual([]);
  }, 180_000);

  it('asks the leaderboard of a benchmark through the shipped SQL', async () => {
    const result = await runCli(['remote', 'leaderboard', '-b', 'abricot', '--api', api, '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson<{ rows: unknown[] }>(result).rows).toHaveLength(1);
    expect(sql.at(-1)).toContain("benchmark = 'abricot'");
  });

  it('prints the table `polyeval leaderboard` prints (board, model, metric, value, interval, items, cost, date, run), passing the filters', async () => {
    const result = await runCli(['remote', 'leaderboard', 'abricot', '--protocol', 'paper', '--dataset', 'sample/abricot', '--api', api], { env });

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^benchmark\s+model\s+metric\s+value\s+95% CI\s+items\s+cost\s+date\s+run\n/);
    // items, cost and date come from the ledger's row of the run the first test started.
    expect(result.stdout).toMatch(
      new RegExp(
        `^sample/abricot · paper\\s+reference\\s+pearson\\s+1\\.000\\s+\\[1\\.000, 1\\.000\\]\\s+6\\s+\\$0\\.0000\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+${startedRun}$`,
        'm',
      ),
    );

    const none = await runCli(['remote', 'leaderboard', 'abricot', '--protocol', 'calamita', '--api', api, '--json'], { env });
    expect(parseJson<{ rows: unknown[] }>(none).rows).toEqual([]);
  });

  it('exits 2 naming the protocols when the benchmark has no such protocol', async () => {
    const result = await runCli(['remote', 'leaderboard', 'abricot', '--protocol', 'nope', '--api', api], { env });

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/400.*unknown protocol "nope" for abricot \(protocols: paper, paper-figure, calamita, calamita-fork\)/);
  });

  it('exits 2 with the server’s message on a 4xx', async () => {
    const unknown = await runCli(['remote', 'metrics', 'no-such-run', '--api', api], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('404');
    expect(unknown.stderr).toContain('no run "no-such-run"');

    const badBenchmark = await runCli(['remote', 'run', '-b', 'no-such-benchmark', '--api', api], { env });
    expect(badBenchmark.code).toBe(2);
    expect(badBenchmark.stderr).toMatch(/400.*unknown benchmark "no-such-benchmark"/);
  }, 60_000);

  it('says which API it cannot reach (exit 1, the reason, no stack)', async () => {
    // A port nobody listens on: bind one, note it, close it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const result = await runCli(['remote', 'status', 'some-run', '--api', `http://127.0.0.1:${port}`], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach http://127.0.0.1:${port}`);
    expect(result.stderr).toContain('ECONNREFUSED');
    expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it('rejects a bad spec before sending anything', async () => {
    const before = sql.length + rejected.length;
    const result = await runCli(['remote', 'run', '-b', 'sample/abricot', '--temperature', '7', '--api', api], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('polyeval: --temperature 7: ');
    expect(result.stderr).not.toContain('field "temperature"');
    expect(sql.length + rejected.length).toBe(before);
  });

  it('cancels a run and redrives one, each through its signed route', async () => {
    const started = await runCli(['remote', 'run', '-b', 'sample/abricot', '-m', 'reference', '--limit', '2', '--api', api, '--json'], { env });
    const runId = String(parseJson(started).run_id);

    const cancelled = await runCli(['remote', 'cancel', runId, '--api', api, '--json'], { env });
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(parseJson<{ run: { status: string } }>(cancelled).run.status).toBe('cancelled');
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'cancelled', recorded: 0 });

    const redriven = await runCli(['remote', 'redrive', runId, '--api', api], { env });
    expect(redriven.code).toBe(2);
    expect(redriven.stderr).toMatch(/409.*cancelled/);
    expect(rejected).toEqual([]);
  }, 120_000);

  it('resumes an ended run through its signed route, and refuses a cancelled one', async () => {
    const started = await runCli(['remote', 'run', '-b', 'sample/abricot', '-m', 'reference', '--limit', '2', '--api', api, '--json'], { env });
    const runId = String(parseJson(started).run_id);
    await drive(cloud);
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', recorded: 2 });

    const resumed = await runCli(['remote', 'resume', runId, '--api', api, '--json'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseJson<{ run_id: string; status: string }>(resumed)).toMatchObject({ run_id: runId, status: 'completed' });
    await drive(cloud);
    // Nothing recorded SE or missing: the run stays as it ended.
    expect(await cloud.ledger.getRun(runId)).toMatchObject({ status: 'completed', recorded: 2 });

    const text = await runCli(['remote', 'resume', runId, '--api', api], { env });
    expect(text.stdout).toContain(`${runId}: resume `);
    await drive(cloud);

    const other = String(
      parseJson(await runCli(['remote', 'run', '-b', 'sample/abricot', '-m', 'reference', '--limit', '1', '--api', api, '--json'], { env })).run_id,
    );
    await runCli(['remote', 'cancel', other, '--api', api], { env });
    const refused = await runCli(['remote', 'resume', other, '--api', api], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/409.*cancelled/);
    await drive(cloud);
    expect(rejected).toEqual([]);
  }, 120_000);

  it('estimates a run before it starts, from the bundled timings and then from an earlier run', async () => {
    const args = ['remote', 'run', '--dry-run', '-b', 'sample/rocode', '-m', 'reference', '--language', 'python', '--limit', '2', '--api', api, '--json'];
    const before = await runCli(args, { env });
    expect(before.code, before.stderr).toBe(0);
    const first = parseJson<{
      items: number;
      executor: { lane: string; timing_source: string; lambda_gb_seconds: number; ms_per_item: number };
      requests: { cost_usd: number };
      wall_time_seconds: number;
      total_usd: number;
    }>(before);
    expect(first).toMatchObject({ items: 2, executor: { lane: 'lambda', timing_source: 'bundled rocode/python' } });
    expect(first.executor.lambda_gb_seconds).toBeGreaterThan(0);
    expect(first.requests.cost_usd).toBeGreaterThan(0);
    expect(first.wall_time_seconds).toBeGreaterThan(0);
    expect((await cloud.ledger.listRuns()).filter((r) => r.benchmark === 'rocode')).toEqual([]);

    const started = await runCli(['remote', 'run', '-b', 'sample/rocode', '-m', 'reference', '--language', 'python', '--limit', '2', '--api', api, '--json'], {
      env,
    });
    const runId = String(parseJson(started).run_id);
    await drive(cloud);
    const summary = parseJson<{ timing: { execute_ms_mean: number } }>(await runCli(['remote', 'metrics', runId, '--api', api, '--json'], { env }));

    const after = parseJson<typeof first>(await runCli(args, { env }));
    expect(after.executor).toMatchObject({ timing_source: `run ${runId}`, ms_per_item: summary.timing.execute_ms_mean });

    const text = await runCli(
      args.filter((a) => a !== '--json'),
      { env },
    );
    expect(text.stdout).toMatch(/Lambda GB-s/);
    expect(text.stdout).toMatch(/wall time ≈ \d+ min/);
    // The generate stage as the default deployment synthesizes it (generate-mapping.ts; test/infra/generate-mapping.test.ts).
    expect(text.stdout).toMatch(/at 2 generate × 12 \(generateMaxConcurrency 5\)/);
    const wide = await runCli([...args.filter((a) => a !== '--json'), '--generate-concurrency', '300'], { env });
    expect(wide.stdout).toMatch(/at 60 generate × 25 \(generateMaxConcurrency 300\)/);
    // A setting deploy would refuse (a mapping's MaximumConcurrency is 2 to 1,000) is refused here too, naming the flag.
    for (const bad of ['1', '1001']) {
      const refused = await runCli([...args.filter((a) => a !== '--json'), '--generate-concurrency', bad], { env });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/--generate-concurrency.*must be an integer from 2 to 1000/);
    }
  }, 240_000);

  it("downloads a run's report through its presigned S3 link to ./<run-id>.html, or to -o, and opens it with --open", async () => {
    const cwd = tempHome('polyeval-report-');
    const result = await runCli(['remote', 'report', startedRun, '--api', api], { env, cwd });

    expect(result.code, result.stderr).toBe(0);
    const file = join(cwd, `${startedRun}.html`);
    expect(result.stdout).toBe(`${file}\n`);
    const stored = await cloud.store.getText(keys.report(startedRun));
    expect(stored).toMatch(/^<!doctype html>/i);
    expect(readFileSync(file, 'utf8')).toBe(stored);
    expect(existsSync(`${file}.part`)).toBe(false);

    // A fake xdg-open first on PATH records what it was asked to open.
    const bin = join(cwd, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'xdg-open'), '#!/bin/sh\nprintf "%s" "$1" > "$OPENED"\n');
    chmodSync(join(bin, 'xdg-open'), 0o755);
    const opened = join(cwd, 'opened.txt');
    const output = join(cwd, 'pages', 'run.html');
    const open = await runCli(['remote', 'report', startedRun, '-o', output, '--open', '--api', api, '--json'], {
      env: { ...env, PATH: bin, OPENED: opened },
      cwd,
    });
    expect(open.code, open.stderr).toBe(0);
    expect(parseJson(open)).toEqual({ run_id: startedRun, file: output, bytes: Buffer.byteLength(stored ?? ''), opened: true });
    expect(readFileSync(opened, 'utf8')).toBe(output);
    expect(rejected).toEqual([]);
  }, 60_000);

  it('says where the report is when no opener is installed, and exits 0', async () => {
    const cwd = tempHome('polyeval-report-');
    const result = await runCli(['remote', 'report', startedRun, '--open', '--api', api], { env: { ...env, PATH: join(cwd, 'empty') }, cwd });

    const file = join(cwd, `${startedRun}.html`);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${file}\n`);
    expect(result.stderr).toBe(`polyeval: no xdg-open on this machine to open it: open ${file} in a browser\n`);
    expect(existsSync(file)).toBe(true);
  });

  it('exits 2 for an unknown run and for a run whose report is not written yet, writing nothing', async () => {
    const cwd = tempHome('polyeval-report-');
    const unknown = await runCli(['remote', 'report', 'no-such-run', '--api', api], { env, cwd });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('404: no run "no-such-run"');

    const started = await runCli(['remote', 'run', '-b', 'sample/abricot', '-m', 'reference', '--limit', '1', '--api', api, '--json'], { env });
    const runId = String(parseJson(started).run_id);
    const pending = await runCli(['remote', 'report', runId, '-o', join(cwd, 'r.html'), '--api', api], { env, cwd });
    expect(pending.code).toBe(2);
    expect(pending.stderr).toMatch(new RegExp(`409: run "${runId}" is \\w+ and has no report yet: the report is written when the run completes`));
    expect(existsSync(join(cwd, 'r.html'))).toBe(false);
    await drive(cloud);
  }, 60_000);

  it('runs the self-test through the deployed pipeline, waits for it and prints each image held (exit 0), then the same as JSON with --id', async () => {
    const before = new Set(await cloud.store.list('selftest/'));
    const cli = runCli(['remote', 'selftest', '--language', 'python', '--poll-seconds', '1', '--api', api], { env });
    // The CLI starts the self-test, then polls while the pipeline (driven here) runs it.
    let record: string | undefined;
    for (let i = 0; i < 600 && record === undefined; i++) {
      record = (await cloud.store.list('selftest/')).find((k) => !before.has(k));
      if (record === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await drive(cloud);
    const result = await cli;
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/^image python \(python\) · isolation: \S+/mu);
    expect(result.stdout).toMatch(/reference suite: (\d+)\/\1 passed/u);
    expect(result.stdout).toMatch(/a TCP connection to a listening loopback port\s+python\s+OK\s+HELD/u);
    // Python's early exit travels as an MXEval answer, through the unit-tests judge.
    expect(result.stdout).toMatch(/exiting early to fake a pass\s+python\s+WA\s+HELD/u);
    expect(result.stdout).toContain('image cpp (c, cpp)\n  not tested');
    expect(result.stdout).toContain('PASSED: 0 escaped, 0 not judged, 0 reference item(s) failed');
    expect(result.stderr).toMatch(/self-test selftest-\S+ started/u);

    const id = /^self-test (selftest-\S+)$/mu.exec(result.stdout)?.[1] ?? '';
    const again = await runCli(['remote', 'selftest', '--id', id, '--api', api, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson<{ status: string; ok: boolean; escaped: number }>(again)).toMatchObject({ status: 'done', ok: true, escaped: 0 });
    expect(rejected).toEqual([]);
  }, 900_000);

  it('exits 2 naming the languages a self-test can run in, and for an unknown self-test', async () => {
    const cobol = await runCli(['remote', 'selftest', '--language', 'cobol', '--api', api], { env });
    expect(cobol.code).toBe(2);
    expect(cobol.stderr).toMatch(/400: field "languages": no self-test suite runs in "cobol" \(languages: python, c, cpp, kotlin, java, javascript\)/u);
    const unknown = await runCli(['remote', 'selftest', '--id', 'selftest-20261202-000000', '--api', api], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('404: no self-test "selftest-20261202-000000"');
  }, 60_000);

  it('names the toolchain each language was judged with: one line each in `remote status`, the manifest’s toolchains with --json', async () => {
    const started = await runCli(
      ['remote', 'run', '-b', 'sample/rocode', '-m', 'reference', '--language', 'python', '--limit', '1', '-n', '1', '--api', api, '--json'],
      {
        env,
      },
    );
    expect(started.code, started.stderr).toBe(0);
    const runId = String(parseJson(started).run_id);
    await drive(cloud);

    const json = await runCli(['remote', 'status', runId, '--api', api, '--json'], { env });
    const { manifest } = parseJson<{ manifest: Manifest }>(json);
    expect(manifest.toolchains).toEqual([expect.objectContaining({ language: 'python', available: true, version: expect.stringMatching(/^3\.\d+/) })]);
    const [python] = manifest.toolchains;
    const text = await runCli(['remote', 'status', runId, '--api', api], { env });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`toolchain python: ${python?.compiler} ${python?.version} ${(python?.flags ?? []).join(' ')}\n`);
  }, 180_000);
});

describe('polyeval remote run with prices of its own (defect 11)', () => {
  let model: OpenAiServer;

  beforeAll(async () => {
    model = await startOpenAiServer({ flavour: 'vllm', logprob: favourDigit(() => '3') });
  });

  afterAll(async () => {
    await model?.close();
  });

  async function runRemote(
    extra: string[],
    name = 'fake-model',
  ): Promise<{ runId: string; view: { run: { status: string; costUsd?: number; reason?: string }; manifest: Manifest | null } }> {
    const started = await runCli(
      ['remote', 'run', '-b', 'sample/abricot', '-m', `openai:${model.url}#${name}`, '--limit', '4', ...extra, '--api', api, '--json'],
      {
        env,
      },
    );
    expect(started.code, started.stderr).toBe(0);
    const runId = String(parseJson(started).run_id);
    await drive(cloud);
    const status = await runCli(['remote', 'status', runId, '--api', api, '--json'], { env });
    return { runId, view: parseJson(status) };
  }

  // gpt-4o-mini: a self-hosted server's model named like OpenAI's is not billed at OpenAI's price.
  it.each([['fake-model'], ['gpt-4o-mini']])(
    'fails a capped run of an openai: model without a price (%s), naming --prices and --assume-price',
    async (name) => {
      const { view } = await runRemote(['--max-cost', '1'], name);
      expect(view.run).toMatchObject({ status: 'failed', reason: expect.stringMatching(/no price.*--prices.*--assume-price/) });
    },
    120_000,
  );

  it('completes a capped run with --assume-price, bills every call at it and records it in the manifest', async () => {
    const { view } = await runRemote(['--max-cost', '1', '--assume-price', '0.5,1.5']);
    expect(view.run.status).toBe('completed');
    expect(view.manifest?.assumed_price).toEqual({ input_per_mtok: 0.5, output_per_mtok: 1.5 });
    expect(view.run.costUsd).toBeGreaterThan(0);
  }, 120_000);

  it('completes a capped run with --prices <file.json>, carrying the file’s models to every worker', async () => {
    const file = join(tempHome('prices-'), 'prices.json');
    writeFileSync(file, JSON.stringify({ models: { 'fake-model': { input_per_mtok: 2, output_per_mtok: 4, source: 'our contract' } } }));
    const { view } = await runRemote(['--max-cost', '1', '--prices', file]);
    expect(view.run.status).toBe('completed');
    expect(view.manifest?.price_overrides).toEqual({ 'fake-model': { input_per_mtok: 2, output_per_mtok: 4 } });
    expect(view.run.costUsd).toBeGreaterThan(0);
  }, 120_000);

  it('carries a --prices file’s batch prices and premiums to the plan, which records the price every worker bills at', async () => {
    const file = join(tempHome('prices-'), 'prices.json');
    const entry = { input_per_mtok: 2, output_per_mtok: 4, batch_input_per_mtok: 1, batch_output_per_mtok: 2, source: 'our contract' };
    writeFileSync(file, JSON.stringify({ models: { 'fake-model': entry }, premiums: [{ model: 'fake', factor: 1.5, source: 'ours' }] }));
    const { view } = await runRemote(['--max-cost', '1', '--prices', file]);
    expect(view.run.status).toBe('completed');
    expect(view.manifest?.price).toEqual(entry);
  }, 120_000);

  it('estimates a dry run at --assume-price (it used to print no cost)', async () => {
    const dry = await runCli(
      [
        'remote',
        'run',
        '--dry-run',
        '-b',
        'sample/abricot',
        '-m',
        `openai:${model.url}#fake-model`,
        '--limit',
        '4',
        '--assume-price',
        '1000,1000',
        '--api',
        api,
        '--json',
      ],
      {
        env,
      },
    );
    expect(dry.code, dry.stderr).toBe(0);
    const plan = parseJson<{ cost_usd: number | null; total_usd: number | null }>(dry);
    expect(plan.cost_usd).toBeGreaterThan(0);
    expect(plan.total_usd).toBeGreaterThan(0);
  }, 60_000);

  it('stops a run whose assumed price makes the next call overspend the cap', async () => {
    const { view } = await runRemote(['--max-cost', '0.000001', '--assume-price', '1000,1000']);
    expect(view.run.status).toBe('stopped');
    expect(view.run.reason).toMatch(/cost|max-cost|cap/i);
  }, 120_000);

  it('refuses a malformed --assume-price or --prices file before sending anything', async () => {
    const before = rejected.length;
    const bad = await runCli(['remote', 'run', '-b', 'sample/abricot', '-m', `openai:${model.url}#m`, '--assume-price', 'cheap', '--api', api], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--assume-price');
    const missing = await runCli(['remote', 'run', '-b', 'sample/abricot', '-m', `openai:${model.url}#m`, '--prices', '/nonexistent/p.json', '--api', api], {
      env,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('/nonexistent/p.json');
    expect(rejected.length).toBe(before);
  }, 60_000);
});

describe('polyeval remote run through a server whose choices tie', () => {
  let tying: OpenAiServer;

  beforeAll(async () => {
    tying = await startOpenAiServer({ flavour: 'vllm', tokenizer: 'qwen3', logprob: () => -1 });
  });

  afterAll(async () => {
    await tying?.close();
  });

  it('ends with the tie warning in its summary (remote metrics) and its status (remote status), as a local run does', async () => {
    const started = await runCli(['remote', 'run', '-b', 'sample/abricot', '-m', `openai:${tying.url}#fake-model`, '--limit', '4', '--api', api, '--json'], {
      env,
    });
    expect(started.code, started.stderr).toBe(0);
    const runId = String(parseJson(started).run_id);
    await drive(cloud);

    const metrics = await runCli(['remote', 'metrics', runId, '--api', api], { env });
    expect(metrics.code, metrics.stderr).toBe(0);
    expect(metrics.stdout).toMatch(/warning: 4 of 4 scored items \(100%\) gave all choices the same score/);
    const status = parseJson<{ run: { status: string; reason?: string } }>(await runCli(['remote', 'status', runId, '--api', api, '--json'], { env }));
    expect(status.run.status).toBe('completed');
    expect(status.run.reason).toMatch(/^warning: 4 of 4 scored items/);
  }, 120_000);
});
