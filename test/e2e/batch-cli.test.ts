/**
 * `polyeval run --batch` against the fake OpenAI Batch API: a sweep gives the same verdicts
 * as the on-demand sweep of the same answers, at the batch price; failed records, an expired
 * or cancelled job become SE with the provider's reason and run again in a new job on
 * --resume (never twice for a record that succeeded); a kill while the job runs resumes the
 * same job; --max-cost counts a job's worst case before creating it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiBatchServer, startOpenAiServer, type OpenAiBatchServer } from '../fakes/wire-servers/index.ts';
import { homeWithPrices, storedItems, storedVerdicts, until, type RunJson } from '../support/batch-runs.ts';
import { parseJson, runCli, startCli, type CliResult } from '../support/cli.ts';

const env = { OPENAI_API_KEY: 'sk-test' };
/** A made-up price: batch half of on demand, as OpenAI prices its Batch API. */
const PRICES = {
  models: {
    'model-a': { input_per_mtok: 2, output_per_mtok: 8, batch_input_per_mtok: 1, batch_output_per_mtok: 4 },
    'model-b': { input_per_mtok: 1, output_per_mtok: 4, batch_input_per_mtok: 0.5, batch_output_per_mtok: 2 },
  },
};

/** The same model behind both fakes: a digit chosen by the prompt's text. */
const answer = (prompt: string, body: Record<string, unknown>): string => String(1 + ((prompt.length + String(body.model).length) % 5));

const items = storedItems;
const verdicts = storedVerdicts;
const setup = (): { home: string; prices: string } => homeWithPrices(PRICES);

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function batchServer(options: Parameters<typeof startOpenAiBatchServer>[0] = {}): Promise<OpenAiBatchServer> {
  // The same object: a test changes the fake's behaviour between runs through it.
  const server = await startOpenAiBatchServer(Object.assign(options, { answer }));
  servers.push(server);
  return server;
}

function run(args: string[]): Promise<CliResult> {
  return runCli(['run', ...args], { env });
}

// Each test runs the CLI two to four times (a sweep: eight runs); on a loaded machine that outlasts the default minute.
describe('polyeval run --batch (OpenAI Batch API)', { timeout: 300_000 }, () => {
  it('completes a sweep with the verdicts of the on-demand sweep, billed at the batch price', async () => {
    const { home, prices } = setup();
    const batch = await batchServer();
    const onDemand = await startOpenAiServer({ answer });
    servers.push(onDemand);
    const grid = (url: string) => [
      '-b',
      'sample/abricot',
      '-b',
      'abricot:test/fixtures/abricot/items.csv',
      '-m',
      `openai:${url}#model-a`,
      '-m',
      `openai:${url}#model-b`,
      '--prices',
      prices,
      '--json',
      '--home',
      home,
    ];
    const batched = await run([...grid(batch.url), '--batch', '--batch-poll', '0.02']);
    expect(batched.code, batched.stderr).toBe(0);
    const live = await run([...grid(onDemand.url), '--likert-mode', 'digit-parse']);
    expect(live.code, live.stderr).toBe(0);
    const a = parseJson<{ runs: RunJson[] }>(batched).runs;
    const b = parseJson<{ runs: RunJson[] }>(live).runs;
    expect(a).toHaveLength(4);
    expect(batch.batches()).toHaveLength(4);
    expect(batch.batches().every((j) => j.status === 'completed')).toBe(true);
    const list = parseJson<{ run_id: string; cost_usd: number }[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    for (const [i, run] of a.entries()) {
      const other = b[i] as RunJson;
      expect(run.status).toBe('completed');
      expect(run.verdicts).toEqual(other.verdicts);
      expect(run.metrics).toEqual(other.metrics);
      expect(verdicts(home, run.run_id)).toEqual(verdicts(home, other.run_id));
      const model = (JSON.parse(readFileSync(join(home, 'store', 'runs', run.run_id, 'manifest.json'), 'utf8')) as { model: { name: 'model-a' | 'model-b' } })
        .model.name;
      const p = PRICES.models[model];
      const tokens = items(home, run.run_id).reduce((s, x) => ({ in: s.in + (x.record.prompt_tokens ?? 0), out: s.out + (x.record.completion_tokens ?? 0) }), {
        in: 0,
        out: 0,
      });
      expect(tokens.in).toBeGreaterThan(0);
      const cost = list.find((r) => r.run_id === run.run_id)?.cost_usd;
      expect(cost).toBeCloseTo((tokens.in * p.batch_input_per_mtok + tokens.out * p.batch_output_per_mtok) / 1e6, 6);
    }
  });

  it('records the records the API rejected as SE with its reason, and --resume runs only those again, in a new job', async () => {
    const { home, prices } = setup();
    let rejecting = true;
    const server = await batchServer({
      reject: (id) => (rejecting && (id === 'r1' || id === 'r4') ? { status: 400, message: "Invalid 'max_tokens': too large for this model" } : undefined),
    });
    const first = await run([
      '-b',
      'sample/abricot',
      '-m',
      `openai:${server.url}#model-a`,
      '--batch',
      '--batch-poll',
      '0.02',
      '--prices',
      prices,
      '--json',
      '--home',
      home,
    ]);
    expect(first.code, first.stderr).toBe(0);
    const runJson = parseJson<RunJson>(first);
    expect(runJson.verdicts.SE).toBe(2);
    const se = items(home, runJson.run_id).filter((i) => i.record.verdict === 'SE');
    expect(se.map((i) => i.record.error)).toEqual([expect.stringMatching(/HTTP 400: Invalid 'max_tokens'/), expect.stringMatching(/HTTP 400/)]);
    rejecting = false;
    // The same bodies would get the same 400: --resume refuses to send them again unchanged (exit 2, nothing submitted)…
    const refused = await run(['--resume', runJson.run_id, '--batch-poll', '0.02', '--json', '--home', home]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /--resume would send 2 request\(s\) of batch job \S+ again unchanged, and the server rejected them \(Invalid 'max_tokens': too large for this model\)/,
    );
    // The refusal says both ways on: a --capabilities rule with --resume, or a new run without --batch.
    expect(refused.stderr).toMatch(/give --resume a rule in --capabilities.*a new run without --batch \(a resumed run keeps its batch mode\)/);
    expect(server.batches()).toHaveLength(1);
    // …and sends them once what the server refused has changed (here a capabilities rule renames the length field).
    const rule = join(home, 'caps.json');
    writeFileSync(
      rule,
      JSON.stringify({
        rules: [{ provider: 'openai', model: '^model-a$', max_tokens_field: 'max_completion_tokens', source: 'this test: the server refused max_tokens' }],
      }),
    );
    const again = await run(['--resume', runJson.run_id, '--capabilities', rule, '--batch-poll', '0.02', '--json', '--home', home]);
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson<RunJson>(again).verdicts.SE ?? 0).toBe(0);
    expect(server.batches().map((b) => b.requests)).toEqual([runJson.items, 2]);
  });

  it('scores what an expired job finished, records the rest SE batch_expired, and bills only the finished records', async () => {
    const { home, prices } = setup();
    const options = { expireAfter: 3 as number | undefined };
    const server = await batchServer(options);
    const first = await run([
      '-b',
      'sample/abricot',
      '-m',
      `openai:${server.url}#model-a`,
      '--batch',
      '--batch-poll',
      '0.02',
      '--prices',
      prices,
      '--json',
      '--home',
      home,
    ]);
    expect(first.code, first.stderr).toBe(0);
    const runJson = parseJson<RunJson>(first);
    const recorded = items(home, runJson.run_id);
    const expired = recorded.filter((i) => i.record.verdict === 'SE');
    expect(expired).toHaveLength(runJson.items - 3);
    expect(expired[0]?.record.error).toMatch(/expired: batch_expired: This request could not be executed before the completion window expired/);
    const billed = recorded.filter((i) => i.record.prompt_tokens !== null);
    expect(billed).toHaveLength(3);
    options.expireAfter = undefined;
    const again = await run(['--resume', runJson.run_id, '--batch-poll', '0.02', '--json', '--home', home]);
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson<RunJson>(again).verdicts.SE ?? 0).toBe(0);
    expect(server.batches().map((b) => b.requests)).toEqual([runJson.items, runJson.items - 3]);
  });

  it('records the records of a cancelled job SE batch_cancelled, and resumes them in a new job', async () => {
    const { home, prices } = setup();
    const options = { progressPolls: 1_000_000 };
    const server = await batchServer(options);
    const child = runCli(
      ['run', '-b', 'sample/abricot', '-m', `openai:${server.url}#model-a`, '--batch', '--batch-poll', '0.02', '--prices', prices, '--json', '--home', home],
      { env },
    );
    await until(() => server.batches().some((b) => b.status === 'in_progress'));
    const id = server.batches()[0]?.id ?? '';
    await fetch(`${server.url}/batches/${id}/cancel`, { method: 'POST' });
    const first = await child;
    expect(first.code, first.stderr).toBe(0);
    const runJson = parseJson<RunJson>(first);
    expect(items(home, runJson.run_id).every((i) => /batch job \S+ cancelled: batch_cancelled/.test(i.record.error ?? ''))).toBe(true);
    options.progressPolls = 1;
    const again = await run(['--resume', runJson.run_id, '--batch-poll', '0.02', '--json', '--home', home]);
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson<RunJson>(again).verdicts.SE ?? 0).toBe(0);
    expect(server.batches().map((b) => b.status)).toEqual(['cancelled', 'completed']);
  });

  it('finds its job again after SIGKILL while the job runs, instead of creating a second one', async () => {
    const { home, prices } = setup();
    const options = { progressPolls: 1_000_000 };
    const server = await batchServer(options);
    const child = startCli(
      ['run', '-b', 'sample/abricot', '-m', `openai:${server.url}#model-a`, '--batch', '--batch-poll', '0.02', '--prices', prices, '--home', home],
      { env },
    );
    const jobDoc = (): string | undefined => {
      const runs = join(home, 'store', 'runs');
      const run = existsSync(runs) ? readdirSync(runs)[0] : undefined;
      const file = run ? join(runs, run, 'batches', '0000.json') : undefined;
      return file && existsSync(file) && /"state": "submitted"/.test(readFileSync(file, 'utf8')) ? run : undefined;
    };
    await until(() => jobDoc() !== undefined && server.batches()[0]?.status === 'in_progress');
    // The run's status line names the job, its provider status and counts.
    let reason: string | undefined;
    for (let i = 0; i < 50 && !reason; i++) {
      reason = parseJson<{ reason?: string }[]>(await runCli(['list', 'runs', '--json', '--home', home]))[0]?.reason;
      if (!reason) await new Promise((r) => setTimeout(r, 100));
    }
    expect(reason).toMatch(/^batch job batch_\S+: in_progress, 0\/\d+ succeeded/);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));
    options.progressPolls = 1;
    const resumed = await run(['--resume', jobDoc() as string, '--batch-poll', '0.02', '--prices', prices, '--json', '--home', home]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const runJson = parseJson<RunJson>(resumed);
    expect(runJson.status).toBe('completed');
    expect(runJson.verdicts.SE ?? 0).toBe(0);
    expect(server.batches()).toHaveLength(1);
    expect(items(home, runJson.run_id)).toHaveLength(runJson.items);
  });

  it('cancels the job of a removed run still running at the provider (polyeval rm)', async () => {
    const { home, prices } = setup();
    const server = await batchServer({ progressPolls: 1_000_000 });
    const child = startCli(
      ['run', '-b', 'sample/abricot', '-m', `openai:${server.url}#model-a`, '--batch', '--batch-poll', '0.02', '--prices', prices, '--home', home],
      { env },
    );
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    await until(() => server.batches()[0]?.status === 'in_progress').catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\n${stderr}`);
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));
    const runId = readdirSync(join(home, 'store', 'runs'))[0] as string;
    const removed = await runCli(['rm', runId, '--json', '--home', home], { env });
    expect(removed.code, removed.stderr).toBe(0);
    const id = server.batches()[0]?.id;
    expect(parseJson<{ removed: { cancelled_jobs?: string[] }[] }>(removed).removed[0]?.cancelled_jobs).toEqual([id]);
    expect(server.requests.some((r) => r.method === 'POST' && r.path === `/v1/batches/${id}/cancel`)).toBe(true);
  });

  it('stops before creating a job whose worst case passes --max-cost (exit 3), and --dry-run --batch shows both prices', async () => {
    const { home, prices } = setup();
    const server = await batchServer();
    const args = ['-b', 'sample/abricot', '-m', `openai:${server.url}#model-a`, '--prices', prices, '--home', home];
    const stopped = await run([...args, '--batch', '--max-cost', '0.0001', '--json']);
    expect(stopped.code, stopped.stderr).toBe(3);
    expect(stopped.stderr).toMatch(/cost cap/);
    expect(server.batches()).toHaveLength(0);
    const dry = await run([...args, '--batch', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    const [, onDemand, batched] = /≈ \$([\d.]+) on demand · ≈ \$([\d.]+) as a batch/.exec(dry.stdout) ?? [];
    expect(Number(batched)).toBeCloseTo(Number(onDemand) / 2, 3);
  });

  it('refuses --batch for a provider without a batch API and for log-probability likert modes (exit 2)', async () => {
    const { home } = setup();
    const bedrock = await run(['-b', 'sample/abricot', '-m', 'reference', '--batch', '--home', home]);
    expect(bedrock.code).toBe(2);
    expect(bedrock.stderr).toMatch(/--batch: provider "reference" has no batch API/);
    const server = await batchServer();
    const likelihood = await run(['-b', 'sample/abricot', '-m', `openai:${server.url}#model-a`, '--batch', '--likert-mode', 'likelihood', '--home', home]);
    expect(likelihood.code).toBe(2);
    expect(likelihood.stderr).toMatch(/--likert-mode likelihood cannot run as a batch/);
  });
});
