/**
 * `polyeval run --batch --dry-run` estimates the run `--batch` will run: ABRICOT as a batch reads
 * a digit from the text (digit-parse, docs/providers.md: batch jobs return no log-probabilities),
 * one call an item with a few completion tokens — not the call per choice (five an item) of the
 * log-probability mode an on-demand run of the same model uses (audit 2026-12-07, item 2:
 * 133,320 prompt + ≤0 completion tokens, 5× too high). The estimate is what the run reserves against --max-cost for its job.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiBatchServer } from '../fakes/wire-servers/index.ts';
import { homeWithPrices, type RunJson } from '../support/batch-runs.ts';
import { parseJson, runCli } from '../support/cli.ts';

const env = { OPENAI_API_KEY: 'sk-test' };
const PRICES = { models: { 'gpt-4o-mini': { input_per_mtok: 0.15, output_per_mtok: 0.6, batch_input_per_mtok: 0.075, batch_output_per_mtok: 0.3 } } };

interface Plan {
  items: number;
  likert_mode: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number | null;
  batch_cost_usd?: number | null;
}

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('polyeval run --batch --dry-run (ABRICOT)', { timeout: 300_000 }, () => {
  it('estimates the digit-parse calls the batch run makes, and its job reserves that estimate', async () => {
    const server = await startOpenAiBatchServer({ answer: () => '3' });
    servers.push(server);
    const { home, prices } = homeWithPrices(PRICES);
    const base = ['run', '-b', 'sample/abricot', '-m', `openai:${server.url}#gpt-4o-mini`, '--prices', prices, '--home', home];
    const dry = async (...flags: string[]): Promise<Plan> => {
      const out = await runCli([...base, ...flags, '--dry-run', '--json'], { env });
      expect(out.code, out.stderr).toBe(0);
      return parseJson<Plan>(out);
    };

    const asBatch = await dry('--batch');
    const digitParse = await dry('--likert-mode', 'digit-parse');
    const onDemand = await dry();
    expect(asBatch.likert_mode).toBe('digit-parse');
    expect(asBatch.items).toBe(52);
    // One call an item with its few completion tokens, as `--likert-mode digit-parse` estimates it…
    expect({ prompt: asBatch.prompt_tokens, completion: asBatch.completion_tokens }).toEqual({
      prompt: digitParse.prompt_tokens,
      completion: digitParse.completion_tokens,
    });
    expect(asBatch.completion_tokens).toBeGreaterThan(0);
    // …not the on-demand run's call per choice (a log-probability mode, 5 choices).
    expect(onDemand.likert_mode).not.toBe('digit-parse');
    expect(onDemand.prompt_tokens).toBe(5 * asBatch.prompt_tokens);
    // The on-demand dry run's batch figure (`… as a batch`, and `remote run --dry-run`'s batch total) is
    // that batch run's too, not its own call per choice at the batch price (5× too high).
    expect(onDemand.batch_cost_usd).toBeCloseTo(asBatch.batch_cost_usd ?? NaN, 12);

    // The run itself: its one job reserved the dry run's batch estimate against --max-cost.
    const run = await runCli([...base, '--batch', '--batch-poll', '0.02', '--max-cost', '1', '--json'], { env });
    expect(run.code, run.stderr).toBe(0);
    const runId = parseJson<RunJson>(run).run_id;
    const dir = join(home, 'store', 'runs', runId, 'batches');
    const jobs = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { reserved_usd: number });
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.reserved_usd).toBeCloseTo(asBatch.batch_cost_usd ?? NaN, 9);
  });
});
