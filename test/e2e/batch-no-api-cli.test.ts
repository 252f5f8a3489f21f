/**
 * `polyeval run --batch` against an OpenAI-compatible server that has chat and completions but
 * no Batch API (the fake vLLM: no /v1/files or /v1/batches route, 404): one sentence and exit
 * 2, never an internal error with a stack trace.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiServer } from '../fakes/wire-servers/index.ts';
import { homeWithPrices } from '../support/batch-runs.ts';
import { runCli } from '../support/cli.ts';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('polyeval run --batch on a server without the Batch API', { timeout: 120_000 }, () => {
  it('exits 2 with "this server does not offer the OpenAI Batch API; run without --batch"', async () => {
    const server = await startOpenAiServer({ flavour: 'vllm', answer: () => '3' });
    servers.push(server);
    const { home, prices } = homeWithPrices({ models: { 'fake-model': { input_per_mtok: 0, output_per_mtok: 0 } } });

    const out = await runCli(['run', '-b', 'sample/abricot', '-m', `openai:${server.url}#fake-model`, '--batch', '--prices', prices, '--home', home], {
      env: { OPENAI_API_KEY: 'sk-test' },
    });

    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toContain('this server does not offer the OpenAI Batch API; run without --batch');
    expect(out.stderr).not.toMatch(/internal error|\n\s+at /);
    // The list (a killed run's job is looked for first) was the only batch call: nothing was uploaded.
    expect(server.requests.filter((r) => r.path.includes('/batches') || r.path.includes('/files')).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /v1/batches?limit=100',
    ]);
  });
});
