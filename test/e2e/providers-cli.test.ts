/**
 * Real models through the CLI, against local servers that speak the real wire formats:
 * ABRICOT in likelihood mode over an OpenAI-compatible server, Bedrock in digit-parse
 * mode, --dry-run and --max-cost.
 */
import { calamitaGold } from '#core/benchmarks/likert-gold.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { favourDigit, startBedrockServer, startOpenAiServer, type OpenAiServer } from '../fakes/wire-servers/index.ts';
import type { FakeServer } from '../fakes/wire-servers/index.ts';
import { ROOT, parseJson, runCli, tempHome } from '../support/cli.ts';

interface Item {
  text: string;
  abs_mean: number;
  inc_mean: number;
}
const items = readFileSync(join(ROOT, 'sample/abricot/items.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Item);
// The paper protocol's gold: the ABRICOT authors' rule (layers/core/benchmarks/likert-gold.ts).
const gold = (mean: number): number => calamitaGold(mean);

/** The open question of a few-shot prompt is the last one: its sentence and subtask. */
function lastQuestion(context: string): { sentence: string; subtask: 'abstractness' | 'inclusiveness' } {
  const at = context.lastIndexOf('Assegna un valore di ');
  const question = context.slice(at);
  const sentence = /frase seguente:\s(.*?)\sDescrizione dei valori:/s.exec(question)?.[1] ?? '';
  return { sentence, subtask: question.startsWith('Assegna un valore di astrazione') ? 'abstractness' : 'inclusiveness' };
}

const env = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1', OPENAI_API_KEY: 'sk-test' };

describe('openai: provider end to end', () => {
  let server: OpenAiServer;
  const home = tempHome();

  beforeAll(async () => {
    // Knows the abstractness gold; answers 3 to every inclusiveness question.
    server = await startOpenAiServer({
      logprob: favourDigit((context) => {
        const q = lastQuestion(context);
        if (q.subtask === 'inclusiveness') return '3';
        const item = items.find((i) => i.text === q.sentence);
        return String(item ? gold(item.abs_mean) : 1);
      }),
    });
  });
  afterAll(() => server.close());

  it('runs ABRICOT in likelihood mode and reports a constant-prediction correlation as absent', async () => {
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', `openai:${server.url}#fake-model`, '--json', '--home', home], { env });
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<{ likert_mode: string; items: number; metrics: Record<string, { value: number | null; reason?: string }> }>(result);
    expect(run.likert_mode).toBe('likelihood');
    expect(run.metrics['pearson/subtask=abstractness']?.value).toBeCloseTo(1, 10);
    expect(run.metrics['accuracy/subtask=abstractness']?.value).toBe(1);
    expect(run.metrics['pearson/subtask=inclusiveness']?.value).toBeNull();
    expect(run.metrics['pearson/subtask=inclusiveness']?.reason).toMatch(/constant/);
    const expectedAccuracy = items.filter((i) => gold(i.inc_mean) === 3).length / items.length;
    expect(run.metrics['accuracy/subtask=inclusiveness']?.value).toBeCloseTo(expectedAccuracy, 10);
    const scoring = server.requests.filter((r) => r.path.endsWith('/completions') && (r.body as { echo?: boolean }).echo === true);
    expect(scoring.length).toBeGreaterThanOrEqual(run.items);
  });

  it('warns once on stderr when OPENAI_API_KEY goes to a host that is not api.openai.com, and still sends it; silent with --api-key-env', async () => {
    const before = server.requests.length;
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', `openai:${server.url}#fake-model`, '--limit', '3', '--json', '--home', home], { env });
    expect(result.code, result.stderr).toBe(0);
    const warnings = result.stderr.split('\n').filter((line) => line.includes('sending OPENAI_API_KEY to 127.0.0.1'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/not its provider's API host \(api\.openai\.com\).*--api-key-env/);
    const calls = server.requests.slice(before);
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.every((r) => r.headers.authorization === 'Bearer sk-test')).toBe(true);

    const named = await runCli(
      ['run', '-b', 'sample/abricot', '-m', `openai:${server.url}#fake-model`, '--limit', '3', '--api-key-env', 'OPENAI_API_KEY', '--json', '--home', home],
      { env },
    );
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).not.toContain('sending OPENAI_API_KEY');
  });

  it('does not bill a self-hosted server’s model named gpt-4o-mini at OpenAI’s price: no dry-run cost, --max-cost refused (exit 2) until priced', async () => {
    const before = server.requests.length;
    const spec = `openai:${server.url}#gpt-4o-mini`;
    const dry = await runCli(['run', '-b', 'sample/abricot', '-m', spec, '--dry-run', '--json', '--home', home], { env });
    expect(dry.code, dry.stderr).toBe(0);
    const plan = parseJson<{ cost_usd: number | null; cost_reason?: string }>(dry);
    expect(plan.cost_usd).toBeNull();
    expect(plan.cost_reason).toMatch(/does not price openai:http:\/\/127\.0\.0\.1.*--prices or --assume-price/);
    const capped = await runCli(['run', '-b', 'sample/abricot', '-m', spec, '--max-cost', '1', '--json', '--home', home], { env });
    expect(capped.code).toBe(2);
    expect(capped.stderr).toMatch(/--max-cost 1 cannot bound the spend of model "gpt-4o-mini": it has no price of its own.*--prices.*--assume-price/);
    expect(server.requests.length).toBe(before);
    const assumed = await runCli(['run', '-b', 'sample/abricot', '-m', spec, '--dry-run', '--assume-price', '1,1', '--json', '--home', home], { env });
    expect(parseJson<{ cost_usd: number | null }>(assumed).cost_usd).toBeGreaterThan(0);
  });

  it('prints the plan and its tokens without calling the model on --dry-run', async () => {
    const before = server.requests.length;
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', `openai:${server.url}#fake-model`, '--dry-run', '--json', '--home', home], { env });
    expect(result.code, result.stderr).toBe(0);
    const plan = parseJson<{ items: number; prompt_tokens: number; cost_usd: number | null; cost_reason?: string }>(result);
    expect(plan.items).toBe(items.length * 2);
    expect(plan.prompt_tokens).toBeGreaterThan(plan.items * 50);
    expect(plan.cost_usd).toBeNull();
    expect(plan.cost_reason).toBeTruthy();
    expect(server.requests.length).toBe(before);
  });
});

describe('bedrock: provider end to end', () => {
  let server: FakeServer & { url: string };
  const home = tempHome();
  const model = 'anthropic.claude-3-haiku-20240307-v1:0';

  beforeAll(async () => {
    server = (await startBedrockServer({ answer: () => '3' })) as FakeServer & { url: string };
  });
  afterAll(() => server.close());

  it('runs ABRICOT in digit-parse mode, since Bedrock returns no log-probabilities', async () => {
    const result = await runCli(
      ['run', '-b', 'sample/abricot', '-m', `bedrock:${model}`, '--endpoint-url', server.url, '--limit', '6', '--json', '--home', home],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<{ likert_mode: string; verdicts: Record<string, number>; items: number }>(result);
    expect(run.likert_mode).toBe('digit-parse');
    expect(run.items).toBe(6);
    const list = parseJson<{ cost_usd: number }[]>(await runCli(['list', 'runs', '--json', '--home', home]));
    expect(list[0]?.cost_usd).toBeGreaterThan(0);
  });

  it('estimates the cost of a priced model on --dry-run', async () => {
    const result = await runCli(
      ['run', '-b', 'sample/abricot', '-m', `bedrock:${model}`, '--endpoint-url', server.url, '--dry-run', '--json', '--home', home],
      { env },
    );
    const plan = parseJson<{ prompt_tokens: number; completion_tokens: number; cost_usd: number }>(result);
    expect(plan.cost_usd).toBeCloseTo((plan.prompt_tokens * 0.25 + plan.completion_tokens * 1.25) / 1e6, 12);
  });

  it('stops cleanly at --max-cost and finishes on resume with a higher cap', async () => {
    const stopped = await runCli(
      [
        'run',
        '-b',
        'sample/abricot',
        '-m',
        `bedrock:${model}`,
        '--endpoint-url',
        server.url,
        '--max-cost',
        '0.0004',
        '--concurrency',
        '1',
        '--json',
        '--home',
        home,
      ],
      { env },
    );
    expect(stopped.code, stopped.stderr).toBe(3);
    const partial = parseJson<{ status: string; run_id: string; recorded: number; items: number }>(stopped);
    expect(partial.status).toBe('stopped');
    expect(partial.recorded).toBeGreaterThan(0);
    expect(partial.recorded).toBeLessThan(partial.items);
    expect(stopped.stderr).toContain(`--resume ${partial.run_id}`);
    const spent = parseJson<{ cost_usd: number }[]>(await runCli(['list', 'runs', '--json', '--home', home])).find(
      (r) => (r as unknown as { run_id: string }).run_id === partial.run_id,
    );
    expect(spent?.cost_usd).toBeGreaterThan(0);
    expect(spent?.cost_usd).toBeLessThanOrEqual(0.0004);
    // the endpoint override is in the manifest: resume reaches the same server without repeating it
    const resumed = await runCli(['run', '--resume', partial.run_id, '--max-cost', '1', '--json', '--home', home], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(parseJson<{ items: number }>(resumed).items).toBe(partial.items);
  });

  it('refuses --max-cost on a model without a price (exit 2), naming --prices and --assume-price', async () => {
    const before = server.requests.length;
    const result = await runCli(
      ['run', '-b', 'sample/abricot', '-m', 'bedrock:acme.new-model-v1:0', '--endpoint-url', server.url, '--max-cost', '1', '--json', '--home', home],
      { env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--prices/);
    expect(result.stderr).toMatch(/--assume-price/);
    expect(server.requests.length).toBe(before);
  });

  it('lists the price table with as_of and source per model', async () => {
    const result = await runCli(['list', 'providers', '--prices', '--json', '--home', home]);
    expect(result.code, result.stderr).toBe(0);
    const rows = parseJson<{ model: string; input_per_mtok: number; as_of: string; source: string }[]>(result);
    const haiku45 = rows.find((r) => r.model === 'anthropic.claude-haiku-4-5-20251001-v1:0');
    expect(haiku45).toMatchObject({ input_per_mtok: 1, as_of: '2026-11', source: expect.any(String) });
    for (const r of rows) expect(r.source.length).toBeGreaterThan(0);
  });
});

describe('calls in flight per model from the CLI', () => {
  let server: FakeServer & { url: string };
  const home = tempHome();
  const model = 'bedrock:anthropic.claude-3-haiku-20240307-v1:0';

  beforeAll(async () => {
    // Each answer takes 30 ms, so calls really overlap.
    server = (await startBedrockServer({ holdMs: 30, answer: () => '3' })) as FakeServer & { url: string };
  });
  afterAll(() => server.close());

  it("gives a sweep's model the --model-concurrency calls in flight, one limit across its cells", async () => {
    const result = await runCli(
      [
        'run',
        '-b',
        'sample/abricot',
        '-b',
        'sample/abricot',
        '-m',
        model,
        '--endpoint-url',
        server.url,
        '--concurrency',
        '64',
        '--model-concurrency',
        '8',
        '--json',
        '-q',
        '--home',
        home,
      ],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    const sweep = parseJson<{ runs: { status: string }[] }>(result);
    expect(sweep.runs.map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(server.maxInFlight()).toBeGreaterThan(4);
    expect(server.maxInFlight()).toBeLessThanOrEqual(8);
  });

  it('refuses a single run whose --concurrency and --model-concurrency disagree (exit 2, naming both)', async () => {
    const result = await runCli(
      ['run', '-b', 'sample/abricot', '-m', model, '--endpoint-url', server.url, '--concurrency', '4', '--model-concurrency', '8', '--home', home],
      { env },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--concurrency 4 and --model-concurrency 8/);
  });
});
