/**
 * `polyeval run` sweeps with `--batch-model <model>`: that model's cells generate through the
 * OpenAI Batch API fake (a batch run, at the batch price), the other models' cells on demand,
 * with the verdicts the same answers get on demand; `--resume <sweep-id>` keeps each cell's
 * mode; a model not in the sweep, or one whose provider has no batch API, is refused before
 * anything starts, naming it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiBatchServer, startOpenAiServer } from '../fakes/wire-servers/index.ts';
import { homeWithPrices, storedVerdicts, type RunJson } from '../support/batch-runs.ts';
import { parseJson, runCli } from '../support/cli.ts';

const env = { OPENAI_API_KEY: 'sk-test' };
/** Made-up prices: batch half of on demand. */
const PRICES = { models: { 'model-a': { input_per_mtok: 2, output_per_mtok: 8, batch_input_per_mtok: 1, batch_output_per_mtok: 4 } } };
const answer = (prompt: string): string => String(1 + (prompt.length % 5));

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const generation = (home: string, runId: string): string | undefined =>
  (JSON.parse(readFileSync(join(home, 'store', 'runs', runId, 'manifest.json'), 'utf8')) as { generation?: string }).generation;

describe('polyeval run sweeps with --batch-model', { timeout: 300_000 }, () => {
  it('runs the named model’s cells as batches and the others on demand, with the on-demand verdicts', async () => {
    const { home, prices } = homeWithPrices(PRICES);
    const batch = await startOpenAiBatchServer({ answer });
    const live = await startOpenAiServer({ answer });
    servers.push(batch, live);
    const batched = `openai:${batch.url}#model-a`;
    const onDemand = `openai:${live.url}#model-a`;
    const common = ['-b', 'sample/abricot', '--likert-mode', 'digit-parse', '--prices', prices, '--json', '--home', home];
    const result = await runCli(['run', ...common, '-m', batched, '-m', onDemand, '--batch-model', batched, '--batch-poll', '0.02'], { env });
    expect(result.code, result.stderr).toBe(0);
    const out = parseJson<{ sweep_id: string; runs: (RunJson & { model: string })[] }>(result);
    expect(out.runs).toHaveLength(2);
    const [a, b] = out.runs as unknown as [RunJson, RunJson];
    expect([generation(home, a.run_id), generation(home, b.run_id)]).toEqual(['batch', undefined]);
    expect(batch.batches().map((j) => j.status)).toEqual(['completed']);
    expect(a.status).toBe('completed');
    expect(storedVerdicts(home, a.run_id)).toEqual(storedVerdicts(home, b.run_id));
    // The sweep document keeps each cell's mode, so a resume plans a missing cell as it was asked.
    const doc = JSON.parse(readFileSync(join(home, 'store', 'sweeps', `${out.sweep_id}.json`), 'utf8')) as { specs: { batch?: boolean }[]; batch?: boolean };
    expect(doc.specs.map((s) => s.batch === true)).toEqual([true, false]);
    expect(doc.batch).toBeUndefined();
    const list = parseJson<{ run_id: string; cost_usd: number }[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    const cost = (id: string): number => list.find((r) => r.run_id === id)?.cost_usd ?? NaN;
    // The same tokens (both fakes count them alike), billed at half the price as a batch.
    expect(cost(a.run_id)).toBeGreaterThan(0);
    expect(cost(a.run_id)).toBeCloseTo(cost(b.run_id) / 2, 8);
  });

  it('refuses a --batch-model not among the -m models, one without a batch API, and one with --batch, before starting anything (exit 2)', async () => {
    const { home } = homeWithPrices(PRICES);
    const grid = ['run', '-b', 'sample/abricot', '-m', 'reference', '-m', 'openai:http://127.0.0.1:9/v1#model-a', '--home', home];
    const missing = await runCli([...grid, '--batch-model', 'openai:http://127.0.0.1:9/v1#model-b'], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--batch-model "openai:http://127.0.0.1:9/v1#model-b" is not one of the sweep\'s models');
    const noApi = await runCli([...grid, '--batch-model', 'reference'], { env });
    expect(noApi.code).toBe(2);
    expect(noApi.stderr).toContain('--batch-model: model "reference" cannot run as a batch');
    expect(noApi.stderr).toContain('provider "reference" has no batch API');
    const both = await runCli([...grid, '--batch', '--batch-model', 'reference'], { env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--batch makes every cell a batch; --batch-model picks some');
    const listed = parseJson<unknown[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    expect(listed).toEqual([]);
  });
});
