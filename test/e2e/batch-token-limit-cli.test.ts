/**
 * `polyeval run --batch --batch-token-limit N` against the fake OpenAI Batch API enforcing a
 * batch queue limit of N input tokens (token_limit_exceeded past it): jobs are sized by their
 * estimated input tokens and created one after another as earlier ones end, so none is
 * refused and every item is answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiBatchServer } from '../fakes/wire-servers/index.ts';
import { homeWithPrices } from '../support/batch-runs.ts';
import { parseJson, runCli } from '../support/cli.ts';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('polyeval run --batch under an enqueued-token limit', { timeout: 180_000 }, () => {
  it('sizes and staggers jobs so none fails token_limit_exceeded', async () => {
    const limit = 3000;
    const server = await startOpenAiBatchServer({ answer: () => '3', enqueuedTokenLimit: limit, progressPolls: 1 });
    servers.push(server);
    const { home, prices } = homeWithPrices({ models: { 'model-a': { input_per_mtok: 1, output_per_mtok: 1 } } });

    const out = await runCli(
      [
        'run',
        '-b',
        'sample/abricot',
        '-m',
        `openai:${server.url}#model-a`,
        '--batch',
        '--batch-poll',
        '0.02',
        '--batch-token-limit',
        String(limit),
        '--prices',
        prices,
        '--json',
        '--home',
        home,
      ],
      { env: { OPENAI_API_KEY: 'sk-test' } },
    );

    expect(out.code, out.stderr).toBe(0);
    const jobs = server.batches();
    expect(jobs.length).toBeGreaterThan(1);
    expect(jobs.map((j) => j.status)).toEqual(jobs.map(() => 'completed'));
    const run = parseJson(out);
    expect(JSON.stringify(run)).not.toContain('token_limit_exceeded');
    expect(run).toMatchObject({ status: 'completed' });
    expect(JSON.stringify(run.verdicts ?? {})).not.toContain('SE');
  });
});
