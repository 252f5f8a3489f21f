/**
 * `polyeval run -m anthropic:<model> --batch` against the fake Anthropic Message Batches API:
 * a sweep gives the verdicts of the on-demand sweep of the same answers (the on-demand
 * Messages API fake), at the batch price; errored, expired and canceled requests become SE
 * with Anthropic's reason and run again in a new batch on --resume (never a request that
 * succeeded); a kill while the batch runs resumes the same batch; `polyeval rm` cancels it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicBatchServer, startAnthropicServer, type AnthropicBatchServer, type AnthropicBatchServerOptions } from '../fakes/wire-servers/index.ts';
import { billedTokens, homeWithPrices, manifestModel, storedItems, storedVerdicts, until, type RunJson } from '../support/batch-runs.ts';
import { parseJson, runCli, startCli, type CliResult } from '../support/cli.ts';

const KEY = 'sk-ant-test';
const env = { ANTHROPIC_API_KEY: KEY };
/** Claude Haiku 4.5 takes temperature or top_p (not both); Claude 3.5 Haiku takes both: each request follows its model's rules. */
const MODELS = ['claude-haiku-4-5', 'claude-3-5-haiku-20241022'] as const;
/** Made-up prices: batch half of on demand, as Anthropic prices Message Batches. */
const PRICES = {
  models: {
    'claude-haiku-4-5': { input_per_mtok: 1, output_per_mtok: 5, batch_input_per_mtok: 0.5, batch_output_per_mtok: 2.5 },
    'claude-3-5-haiku-20241022': { input_per_mtok: 0.8, output_per_mtok: 4, batch_input_per_mtok: 0.4, batch_output_per_mtok: 2 },
  },
};

/** The same model behind both fakes: a digit chosen by the prompt's text, and which parameters it got. */
const answer = (prompt: string, body: Record<string, unknown>): string =>
  String(1 + ((prompt.length + String(body.model).length + (body.top_p === undefined ? 0 : 1)) % 5));

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function batchServer(options: AnthropicBatchServerOptions = {}): Promise<AnthropicBatchServer> {
  // The same object: a test changes the fake's behaviour between runs through it.
  const server = await startAnthropicBatchServer(Object.assign(options, { answer, apiKey: KEY }));
  servers.push(server);
  return server;
}

function run(args: string[]): Promise<CliResult> {
  return runCli(['run', ...args], { env });
}

/** One run of sample/abricot through the fake's batches. */
const oneRun = (url: string, prices: string, home: string): string[] => [
  '-b',
  'sample/abricot',
  '-m',
  `anthropic:${MODELS[0]}`,
  '--endpoint-url',
  url,
  '--batch',
  '--batch-poll',
  '0.02',
  '--prices',
  prices,
  '--home',
  home,
];

/** Cancels a batch as a user would, with the API's headers. */
async function cancelAt(server: AnthropicBatchServer, id: string): Promise<void> {
  const res = await fetch(`${server.url}/v1/messages/batches/${id}/cancel`, {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
  });
  expect(res.status).toBe(200);
}

// Each test runs the CLI two to four times; on a loaded machine that outlasts the default minute.
describe('polyeval run --batch (Anthropic Message Batches)', { timeout: 300_000 }, () => {
  it('completes a sweep with the verdicts of the on-demand sweep, billed at the batch price', async () => {
    const { home, prices } = homeWithPrices(PRICES);
    const batch = await batchServer();
    const onDemand = await startAnthropicServer({ answer, apiKey: KEY });
    servers.push(onDemand);
    const grid = (url: string) => [
      '-b',
      'sample/abricot',
      '-b',
      'abricot:test/fixtures/abricot/items.csv',
      ...MODELS.flatMap((m) => ['-m', `anthropic:${m}`]),
      '--endpoint-url',
      url,
      '--prices',
      prices,
      '--json',
      '--home',
      home,
    ];
    const batched = await run([...grid(batch.url), '--batch', '--batch-poll', '0.02']);
    expect(batched.code, batched.stderr).toBe(0);
    const live = await run(grid(onDemand.url));
    expect(live.code, live.stderr).toBe(0);
    const a = parseJson<{ runs: RunJson[] }>(batched).runs;
    const b = parseJson<{ runs: RunJson[] }>(live).runs;
    expect(a).toHaveLength(4);
    expect(batch.batches()).toHaveLength(4);
    expect(batch.batches().every((j) => j.status === 'ended')).toBe(true);
    // Nothing went to the on-demand endpoint of the batch fake, and the answers differ between items.
    expect(batch.requests.some((r) => r.path === '/v1/messages')).toBe(false);
    const list = parseJson<{ run_id: string; cost_usd: number }[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    for (const [i, run] of a.entries()) {
      const other = b[i] as RunJson;
      expect(run.status).toBe('completed');
      expect(run.verdicts.SE ?? 0).toBe(0);
      expect(run.verdicts).toEqual(other.verdicts);
      expect(run.metrics).toEqual(other.metrics);
      expect(storedVerdicts(home, run.run_id)).toEqual(storedVerdicts(home, other.run_id));
      const p = PRICES.models[manifestModel(home, run.run_id) as (typeof MODELS)[number]];
      const tokens = billedTokens(home, run.run_id);
      expect(tokens).toEqual(billedTokens(home, other.run_id));
      expect(tokens.in).toBeGreaterThan(0);
      const cost = list.find((r) => r.run_id === run.run_id)?.cost_usd;
      expect(cost).toBeCloseTo((tokens.in * p.batch_input_per_mtok + tokens.out * p.batch_output_per_mtok) / 1e6, 6);
      expect(list.find((r) => r.run_id === other.run_id)?.cost_usd).toBeCloseTo((tokens.in * p.input_per_mtok + tokens.out * p.output_per_mtok) / 1e6, 6);
    }
  });

  it('records errored requests as SE with Anthropic’s reason, and --resume sends only those again, in a new batch', async () => {
    const { home, prices } = homeWithPrices(PRICES);
    let rejecting = true;
    const server = await batchServer({
      reject: (id) => (rejecting && (id === 'r1' || id === 'r4') ? 'max_tokens: 64000 > 8192, the maximum for this model' : undefined),
    });
    const first = await run([...oneRun(server.url, prices, home), '--json']);
    expect(first.code, first.stderr).toBe(0);
    const runJson = parseJson<RunJson>(first);
    expect(runJson.verdicts.SE).toBe(2);
    const se = storedItems(home, runJson.run_id).filter((i) => i.record.verdict === 'SE');
    for (const item of se) expect(item.record.error).toMatch(/batch job msgbatch_\S+ completed: errored: invalid_request_error: max_tokens: 64000 > 8192/);
    rejecting = false;
    const again = await run(['--resume', runJson.run_id, '--batch-poll', '0.02', '--json', '--home', home]);
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson<RunJson>(again).verdicts.SE ?? 0).toBe(0);
    expect(server.batches().map((b) => b.requests)).toEqual([runJson.items, 2]);
  });

  it('scores what an expired batch finished, records the rest SE expired, and bills only the finished requests', async () => {
    const { home, prices } = homeWithPrices(PRICES);
    const options: AnthropicBatchServerOptions = { expireAfter: 3 };
    const server = await batchServer(options);
    const first = await run([...oneRun(server.url, prices, home), '--json']);
    expect(first.code, first.stderr).toBe(0);
    const runJson = parseJson<RunJson>(first);
    const recorded = storedItems(home, runJson.run_id);
    const expired = recorded.filter((i) => i.record.verdict === 'SE');
    expect(expired).toHaveLength(runJson.items - 3);
    expect(expired[0]?.record.error).toMatch(/batch job msgbatch_\S+ expired: expired: the batch reached its 24-hour limit/);
    expect(recorded.filter((i) => i.record.prompt_tokens !== null)).toHaveLength(3);
    delete options.expireAfter;
    const again = await run(['--resume', runJson.run_id, '--batch-poll', '0.02', '--json', '--home', home]);
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson<RunJson>(again).verdicts.SE ?? 0).toBe(0);
    expect(server.batches().map((b) => b.requests)).toEqual([runJson.items, runJson.items - 3]);
  });

  it('records the requests of a cancelled batch SE canceled, and resumes them in a new batch', async () => {
    const { home, prices } = homeWithPrices(PRICES);
    const options: AnthropicBatchServerOptions = { progressPolls: 1_000_000 };
    const server = await batchServer(options);
    const child = run([...oneRun(server.url, prices, home), '--json']);
    await until(() => server.batches().some((b) => b.status === 'in_progress'));
    await cancelAt(server, server.batches()[0]?.id ?? '');
    const first = await child;
    expect(first.code, first.stderr).toBe(0);
    const runJson = parseJson<RunJson>(first);
    expect(storedItems(home, runJson.run_id).every((i) => /batch job \S+ cancelled: canceled: the batch was cancelled/.test(i.record.error ?? ''))).toBe(true);
    options.progressPolls = 1;
    const again = await run(['--resume', runJson.run_id, '--batch-poll', '0.02', '--json', '--home', home]);
    expect(again.code, again.stderr).toBe(0);
    expect(parseJson<RunJson>(again).verdicts.SE ?? 0).toBe(0);
    expect(server.batches().map((b) => b.status)).toEqual(['ended', 'ended']);
    expect(server.batches().map((b) => b.requests)).toEqual([runJson.items, runJson.items]);
  });

  it('finds its batch again after SIGKILL while it runs, instead of creating a second one', async () => {
    const { home, prices } = homeWithPrices(PRICES);
    const options: AnthropicBatchServerOptions = { progressPolls: 1_000_000 };
    const server = await batchServer(options);
    const child = startCli(['run', ...oneRun(server.url, prices, home)], { env });
    const submitted = (): string | undefined => {
      const runs = join(home, 'store', 'runs');
      const runId = existsSync(runs) ? readdirSync(runs)[0] : undefined;
      const file = runId ? join(runs, runId, 'batches', '0000.json') : undefined;
      return file && existsSync(file) && /"state": "submitted"/.test(readFileSync(file, 'utf8')) ? runId : undefined;
    };
    await until(() => submitted() !== undefined && server.batches()[0]?.status === 'in_progress');
    let reason: string | undefined;
    for (let i = 0; i < 50 && !reason; i++) {
      reason = parseJson<{ reason?: string }[]>(await runCli(['list', 'runs', '--json', '--home', home]))[0]?.reason;
      if (!reason) await new Promise((r) => setTimeout(r, 100));
    }
    expect(reason).toMatch(/^batch job msgbatch_\S+: in_progress, 0\/\d+ succeeded/);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));
    options.progressPolls = 1;
    const resumed = await run(['--resume', submitted() as string, '--batch-poll', '0.02', '--json', '--home', home]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const runJson = parseJson<RunJson>(resumed);
    expect(runJson.status).toBe('completed');
    expect(runJson.verdicts.SE ?? 0).toBe(0);
    expect(server.batches()).toHaveLength(1);
    expect(storedItems(home, runJson.run_id)).toHaveLength(runJson.items);
  });

  it('cancels the batch of a removed run still running at Anthropic (polyeval rm)', async () => {
    const { home, prices } = homeWithPrices(PRICES);
    const server = await batchServer({ progressPolls: 1_000_000 });
    const child = startCli(['run', ...oneRun(server.url, prices, home)], { env });
    // Killed once the batch's id is stored: a Message Batch has no tag to find it by otherwise.
    await until(() => {
      const runs = join(home, 'store', 'runs');
      const runId = existsSync(runs) ? readdirSync(runs)[0] : undefined;
      const file = runId ? join(runs, runId, 'batches', '0000.json') : undefined;
      return file !== undefined && existsSync(file) && /"state": "submitted"/.test(readFileSync(file, 'utf8'));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('close', r));
    const runId = readdirSync(join(home, 'store', 'runs'))[0] as string;
    const removed = await runCli(['rm', runId, '--json', '--home', home], { env });
    expect(removed.code, removed.stderr).toBe(0);
    const id = server.batches()[0]?.id;
    expect(parseJson<{ removed: { cancelled_jobs?: string[] }[] }>(removed).removed[0]?.cancelled_jobs).toEqual([id]);
    expect(server.requests.some((r) => r.method === 'POST' && r.path === `/v1/messages/batches/${id}/cancel`)).toBe(true);
  });

  it('refuses --batch without the API key before any call, naming the variable (exit 2)', async () => {
    const { home, prices } = homeWithPrices(PRICES);
    const server = await batchServer();
    const refused = await runCli(['run', ...oneRun(server.url, prices, home)], { env: { ANTHROPIC_API_KEY: '' } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/ANTHROPIC_API_KEY is not set/);
    expect(server.requests).toHaveLength(0);
  });
});
