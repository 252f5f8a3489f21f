/**
 * `polyeval run --batch --max-cost` whose batch job is never created — the server refuses the
 * Batch API's first call, or nothing listens at the host — books nothing: the job's reserved
 * worst case is given back (audit 2026-12-07, item 3: a failed run showed the reservation as
 * its cost). `--resume` reserves again before it creates the job, and the run is billed what
 * the job's results report. A job the API fails whole (validation) is billed nothing either, and
 * a job cancelled at the provider what its finished requests billed, not its reservation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiBatchServer, type OpenAiBatchServer } from '../fakes/wire-servers/index.ts';
import { billedTokens, homeWithPrices, until, type RunJson } from '../support/batch-runs.ts';
import { parseJson, runCli, type CliResult } from '../support/cli.ts';

const env = { OPENAI_API_KEY: 'sk-test' };
/** A made-up price, batch half of on demand as OpenAI prices its Batch API. */
const PRICE = { input_per_mtok: 2, output_per_mtok: 8, batch_input_per_mtok: 1, batch_output_per_mtok: 4 };

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function batchServer(options: Parameters<typeof startOpenAiBatchServer>[0] = {}): Promise<OpenAiBatchServer> {
  const server = await startOpenAiBatchServer({ answer: () => '3', ...options });
  servers.push(server);
  return server;
}

interface ListedRun {
  run_id: string;
  status: string;
  cost_usd: number;
}

async function listed(home: string, runId: string): Promise<ListedRun | undefined> {
  return parseJson<ListedRun[]>(await runCli(['list', 'runs', '--json', '--home', home])).find((r) => r.run_id === runId);
}

function runIdOf(out: CliResult): string {
  const id = /abricot-\d{8}T\d{6}Z-[0-9a-f]+/.exec(out.stdout + out.stderr)?.[0];
  if (id === undefined) throw new Error(`no run id in the output:\n${out.stdout}\n${out.stderr}`);
  return id;
}

const args = (url: string, home: string, prices: string): string[] => [
  'run',
  '-b',
  'sample/abricot',
  '-m',
  `openai:${url}#model-a`,
  '--batch',
  '--batch-poll',
  '0.02',
  '--max-cost',
  '1',
  '--prices',
  prices,
  '--home',
  home,
];

describe('polyeval run --batch --max-cost: a job never created costs nothing', { timeout: 300_000 }, () => {
  it('books nothing when the server refuses the job, and --resume bills what the job reports', async () => {
    const { home, prices } = homeWithPrices({ models: { 'model-a': PRICE } });
    // The first call (the list of jobs, looking for one a killed run created) gets 403: nothing is uploaded or created.
    const server = await batchServer({ faults: [{ kind: 'status', status: 403, message: 'You are not allowed to use the Batch API' }] });

    const failed = await runCli(args(server.url, home, prices), { env });
    expect(failed.code, failed.stderr).not.toBe(0);
    const runId = runIdOf(failed);
    expect(server.batches()).toHaveLength(0);
    expect(await listed(home, runId)).toMatchObject({ status: 'stopped', cost_usd: 0 });

    const resumed = await runCli(['run', '--resume', runId, '--batch-poll', '0.02', '--json', '--home', home], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseJson<RunJson>(resumed).status).toBe('completed');
    expect(server.batches()).toHaveLength(1);
    const tokens = billedTokens(home, runId);
    expect(tokens.in).toBeGreaterThan(0);
    // The reservation made again on --resume settled to the job's billed tokens at the batch price.
    const cost = (await listed(home, runId))?.cost_usd;
    expect(cost).toBeCloseTo((tokens.in * PRICE.batch_input_per_mtok + tokens.out * PRICE.batch_output_per_mtok) / 1e6, 6);
  });

  it('books nothing when nothing listens at the host', async () => {
    const { home, prices } = homeWithPrices({ models: { 'model-a': PRICE } });
    const gone = await startOpenAiBatchServer();
    const url = gone.url;
    await gone.close();

    const failed = await runCli(args(url, home, prices), { env });
    expect(failed.code, failed.stderr).not.toBe(0);
    expect(await listed(home, runIdOf(failed))).toMatchObject({ status: 'stopped', cost_usd: 0 });
  });

  it('bills nothing for a job the API fails whole (its validation), though it reserved the worst case', async () => {
    const { home, prices } = homeWithPrices({ models: { 'model-a': PRICE } });
    // The model's batch queue holds fewer input tokens than the job's: the API fails it with token_limit_exceeded.
    const server = await batchServer({ enqueuedTokenLimit: 10 });

    const out = await runCli([...args(server.url, home, prices), '--json'], { env });
    const runId = runIdOf(out);
    expect(server.batches().map((b) => b.status)).toEqual(['failed']);
    expect(parseJson<RunJson>(out).verdicts.SE).toBe(52);
    expect((await listed(home, runId))?.cost_usd).toBe(0);
  });

  it('bills a job cancelled at the provider what its results report, not its reservation', async () => {
    const { home, prices } = homeWithPrices({ models: { 'model-a': PRICE } });
    // Requests stay undone until the cancel: the cancelled job's error file holds every one, billed nothing.
    const server = await batchServer({ progressPolls: 1_000_000 });

    const child = runCli([...args(server.url, home, prices), '--json'], { env });
    await until(() => server.batches().some((b) => b.status === 'in_progress'));
    const id = server.batches()[0]?.id ?? '';
    await fetch(`${server.url}/batches/${id}/cancel`, { method: 'POST' });
    const out = await child;
    expect(out.code, out.stderr).toBe(0);
    const runId = parseJson<RunJson>(out).run_id;
    expect(server.batches().map((b) => b.status)).toEqual(['cancelled']);
    expect(billedTokens(home, runId)).toEqual({ in: 0, out: 0 });
    expect((await listed(home, runId))?.cost_usd).toBe(0);
  });
});
