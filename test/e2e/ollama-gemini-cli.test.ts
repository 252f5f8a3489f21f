/**
 * `ollama:` and `gemini:` through the real CLI against their fakes: ABRICOT in the mode the
 * capability check picks (next-token from chat top_logprobs; digit-parse where Gemini has no
 * log-probabilities), with the reason recorded; a Kotlin HumanEval generation run; throttling
 * (Ollama's 503 server busy, Gemini's 429) retried, never a verdict; --max-cost on ollama:.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { favourDigit, startGeminiServer, startOllamaServer, type GeminiServer, type OllamaServer } from '../fakes/wire-servers/index.ts';
import { ROOT, parseJson, runCli, tempHome } from '../support/cli.ts';
import { sampleGoldDigit } from '../support/abricot-sample.ts';

interface Task {
  prompt: string;
  canonical_solution: string;
}
interface RunJson {
  likert_mode: string;
  likert_scoring?: { method: string; reason: string };
  items: number;
  verdicts: Record<string, number>;
  metrics: Record<string, { value: number | null }>;
}
const tasks = readFileSync(join(ROOT, 'sample/kotlin-humaneval/tasks.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Task);

const goldDigit = sampleGoldDigit;

/** The canonical solution of the task whose prompt the text contains (completion or chat form). */
function solve(prompt: string, fenced: boolean): string {
  const task = tasks.find((t) => prompt.includes(t.prompt));
  if (!task) return 'nessuna idea';
  return fenced ? `\`\`\`kotlin\n${task.prompt}${task.canonical_solution}\`\`\`\n` : task.canonical_solution;
}

describe('ollama: end to end', () => {
  let server: OllamaServer;
  const home = tempHome();

  beforeAll(async () => {
    server = await startOllamaServer({
      logprob: favourDigit(goldDigit),
      // An instruct model: it answers a templated user turn chat-style (fenced) on either route.
      answer: (prompt) => solve(prompt, true),
      // The first two requests find the scheduler queue full (sched.go ErrMaxQueue): 503 server busy.
      faults: [0, 1].map(() => ({ kind: 'status' as const, status: 503, message: 'server busy, please try again.  maximum pending requests exceeded' })),
    });
  });
  afterAll(() => server.close());
  const env = (): NodeJS.ProcessEnv => ({ OLLAMA_HOST: server.url.replace('http://', '') });

  it('runs ABRICOT in next-token mode from top_logprobs, saying why not likelihood, with busy answers retried', async () => {
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', 'ollama:llama3.2:3b', '--json', '--home', home], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<RunJson>(result);
    expect(run.likert_mode).toBe('next-token');
    expect(run.likert_scoring?.reason).toMatch(/chat-top-logprobs works; no prompt log-probabilities: Ollama's \/v1\/completions ignores `echo`/);
    expect(run.metrics['accuracy/subtask=abstractness']?.value).toBe(1);
    expect(run.metrics['accuracy/subtask=inclusiveness']?.value).toBe(1);
    const busy = server.requests.filter((r) => r.fault === 'status');
    expect(busy).toHaveLength(2);
    expect(server.requests.some((r) => (r.body as { echo?: boolean }).echo === true)).toBe(false);
  }, 240_000);

  it('generates Kotlin HumanEval in chat form (Ollama templates /v1/completions too) and passes the tests', async () => {
    const result = await runCli(['run', '-b', 'sample/kotlin-humaneval', '--limit', '2', '-m', 'ollama:llama3.2:3b', '--json', '-q', '--home', home], {
      env: env(),
    });
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<RunJson>(result);
    expect(run.verdicts).toEqual({ OK: 2 });
    expect(server.requests.filter((r) => r.path === '/v1/completions')).toHaveLength(0);
  }, 600_000);

  it('refuses --max-cost without a price, naming --assume-price, and runs with --assume-price 0,0', async () => {
    const refused = await runCli(['run', '-b', 'sample/abricot', '-m', 'ollama:llama3.2:3b', '--max-cost', '1', '--home', home], { env: env() });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--max-cost 1 cannot bound the spend of model "llama3.2:3b".*--assume-price/);
    const free = await runCli(
      ['run', '-b', 'sample/abricot', '-m', 'ollama:llama3.2:3b', '--max-cost', '1', '--assume-price', '0,0', '--dry-run', '--json', '--home', home],
      {
        env: env(),
      },
    );
    expect(free.code, free.stderr).toBe(0);
    expect(parseJson<{ cost_usd: number }>(free).cost_usd).toBe(0);
  }, 120_000);
});

describe('gemini: end to end', () => {
  let server: GeminiServer;
  const home = tempHome();
  const env = { GEMINI_API_KEY: 'g-key' };

  beforeAll(async () => {
    server = await startGeminiServer({
      apiKey: 'g-key',
      models: { 'gemini-2.5-flash': {}, 'gemini-3.5-flash': { logprobs: true } },
      logprob: favourDigit(goldDigit),
      answer: (prompt) => (prompt.includes('Assegna un valore di ') ? goldDigit(prompt) : solve(prompt, true)),
      // Two per-minute quota 429s (RESOURCE_EXHAUSTED with RetryInfo) first, retried after their delay.
      faults: [{ kind: 'throttle' }, { kind: 'throttle' }],
      retryDelay: '0.2s',
    });
  });
  afterAll(() => server.close());

  it('runs ABRICOT in digit-parse mode where logprobs are not enabled, recording Google’s reason, 429s retried', async () => {
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', `gemini:${server.url}#gemini-2.5-flash`, '--json', '--home', home], { env });
    expect(result.code, result.stderr).toBe(0);
    const run = parseJson<RunJson>(result);
    expect(run.likert_mode).toBe('digit-parse');
    expect(run.likert_scoring?.reason).toMatch(/Logprobs is not enabled for models\/gemini-2\.5-flash/);
    expect(run.metrics['accuracy/subtask=abstractness']?.value).toBe(1);
    expect(server.requests.filter((r) => r.fault === 'throttle')).toHaveLength(2);
  }, 240_000);

  it('runs ABRICOT in next-token mode on a model with log-probabilities, priced from the shipped table', async () => {
    const result = await runCli(['run', '-b', 'sample/abricot', '-m', `gemini:${server.url}#gemini-3.5-flash`, '--json', '--home', home], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson<RunJson>(result).likert_mode).toBe('next-token');
    const plan = await runCli(['run', '-b', 'sample/abricot', '-m', `gemini:${server.url}#gemini-2.5-flash`, '--dry-run', '--json', '--home', home], { env });
    expect(parseJson<{ cost_usd: number | null }>(plan).cost_usd).toBeGreaterThan(0);
  }, 240_000);

  it('generates Kotlin HumanEval through chat (a fenced answer) and passes the tests', async () => {
    const result = await runCli(
      ['run', '-b', 'sample/kotlin-humaneval', '--limit', '2', '-m', `gemini:${server.url}#gemini-2.5-flash`, '--json', '-q', '--home', home],
      { env },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(parseJson<RunJson>(result).verdicts).toEqual({ OK: 2 });
  }, 600_000);
});
