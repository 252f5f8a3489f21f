/**
 * `mistral:` through the real CLI against the OpenAI-compatible fake's Mistral row
 * (test/fakes/wire-servers/openai-server.ts `VENDORS.mistral`, which refuses unknown fields
 * with 422 extra_forbidden as Mistral's API does): ABRICOT in digit-parse mode (the chat
 * request takes no logprobs), the seed sent as `random_seed`, `safe_prompt: false`, the key
 * sent to a host other than api.mistral.ai only with a warning, and no shipped price:
 * `--max-cost` refused before any call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAiServer, type OpenAiServer } from '../fakes/wire-servers/index.ts';
import { parseJson, runCli, tempHome } from '../support/cli.ts';
import { sampleGoldDigit } from '../support/abricot-sample.ts';

interface RunJson {
  likert_mode: string;
  likert_scoring?: { method: string; reason: string };
  verdicts: Record<string, number>;
  metrics: Record<string, { value: number | null }>;
}

describe('mistral: end to end', () => {
  let server: OpenAiServer;
  const home = tempHome();
  const env = { MISTRAL_API_KEY: 'm-key' };

  beforeAll(async () => {
    server = await startOpenAiServer({
      flavour: 'mistral',
      apiKey: 'm-key',
      model: 'mistral-small-latest',
      answer: (prompt) => sampleGoldDigit(prompt),
      // One 429 first (Mistral's "Rate limit exceeded"), retried after its Retry-After.
      faults: [{ kind: 'throttle', retryAfter: '0' }],
    });
  });
  afterAll(() => server.close());

  it('runs ABRICOT in digit-parse mode with the seed as random_seed, a 429 retried', async () => {
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', `mistral:${server.url}#mistral-small-latest`, '--seed', '7', '--json', '--home', home], {
      env,
    });
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<RunJson>(result);
    expect(run.likert_mode).toBe('digit-parse');
    expect(run.likert_scoring?.reason).toMatch(/mistral-small-latest returns none/);
    expect(run.metrics['accuracy/subtask=abstractness']?.value).toBe(1);
    const calls = server.requests.filter((r) => r.fault === undefined);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.path).toBe('/v1/chat/completions');
      expect(call.headers.authorization).toBe('Bearer m-key');
      expect(call.body).toMatchObject({ safe_prompt: false, random_seed: expect.any(Number) as number });
      expect(call.body).not.toHaveProperty('seed');
    }
    expect(server.requests.filter((r) => r.fault === 'throttle')).toHaveLength(1);
    // MISTRAL_API_KEY is meant for api.mistral.ai: sent to the loopback fake only with a warning.
    expect(result.stderr).toMatch(/warning: sending MISTRAL_API_KEY to 127\.0\.0\.1, which is not its provider's API host \(api\.mistral\.ai\)/);
  }, 240_000);

  it('ships no Mistral price: --max-cost is refused before any call, naming --prices and --assume-price', async () => {
    const before = server.requests.length;
    const result = await runCli(
      ['run', '-b', 'sample/abricot', '-m', `mistral:${server.url}#mistral-small-latest`, '--max-cost', '1', '--json', '--home', home],
      { env },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /--max-cost 1 cannot bound the spend of model "mistral-small-latest": it has no price in the price table.*--prices.*--assume-price/,
    );
    expect(server.requests.length).toBe(before);
    // Without a cap the plan says the cost is unknown and why, as for any unpriced model.
    const dry = await runCli(['run', '-b', 'sample/abricot', '-m', `mistral:${server.url}#mistral-small-latest`, '--dry-run', '--json', '--home', home], {
      env,
    });
    expect(dry.code, dry.stderr).toBe(0);
    const plan = parseJson<{ cost_usd: number | null; cost_reason?: string }>(dry);
    expect(plan.cost_usd).toBeNull();
    expect(plan.cost_reason).toMatch(/no price for model "mistral-small-latest" in the price table/);
    expect(server.requests.length).toBe(before);
  }, 120_000);
});
