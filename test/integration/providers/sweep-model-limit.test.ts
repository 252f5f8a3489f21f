/**
 * A concurrent sweep of two benchmarks on one Bedrock model keeps that model's calls under
 * one limit: the server never sees more calls in flight than one run would send, although
 * the two cells run at the same time.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openHome, packageRoot } from '#app/local/home.ts';
import { runSweep } from '#app/local/sweep.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { startBedrockServer } from '../../fakes/wire-servers/index.ts';
import { useFakeAwsEnv } from './harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a concurrent sweep on one endpoint', () => {
  it('shares one call limit between the cells of a model: two benchmarks do not double its load', async () => {
    cleanups.push(useFakeAwsEnv());
    const seen: ('first' | 'second')[] = [];
    // Each answer takes 30 ms, so calls of both cells really overlap.
    const server = await startBedrockServer({
      holdMs: 30,
      answer: (prompt) => {
        seen.push(prompt.includes('Seconda') ? 'second' : 'first');
        return '3';
      },
    });
    cleanups.push(() => server.close());
    const dir = mkdtempSync(join(tmpdir(), 'sweep-model-limit-'));
    const second = join(dir, 'second.jsonl');
    const rows = Array.from({ length: 30 }, (_, i) =>
      JSON.stringify({ id: `q${i}`, target_token: 'fiume', text: `Seconda serie, frase ${i}: il fiume scorre.`, abs_mean: (i % 7) / 7, inc_mean: (i % 5) / 5 }),
    );
    writeFileSync(second, `${rows.join('\n')}\n`);
    const model = 'bedrock:anthropic.claude-3-haiku-20240307-v1:0';
    const home = openHome(join(dir, 'home'));

    const { results, failures } = await runSweep(
      [parseRunSpec({ benchmark: 'sample/abricot', model }), parseRunSpec({ benchmark: `abricot:${second}`, model })],
      { home, packageRoot: packageRoot(), providerOptions: { endpointUrl: server.url }, gridConcurrency: 32, jobs: 2 },
    );

    expect(failures).toEqual([]);
    expect(results.map((r) => [r.status, r.items])).toEqual([
      ['completed', 52],
      ['completed', 60],
    ]);
    // The cells overlapped: the second cell's calls began before the first cell's ended.
    expect(seen.indexOf('second')).toBeLessThan(seen.lastIndexOf('first'));
    // Bedrock's default limit is 4 calls in flight, for the model — not 4 per cell.
    expect(server.maxInFlight()).toBeLessThanOrEqual(4);
    expect(server.maxInFlight()).toBeGreaterThan(1);
  });

  it('takes the size of that limit from --model-concurrency (providerOptions.concurrency), still one per model', async () => {
    cleanups.push(useFakeAwsEnv());
    const server = await startBedrockServer({ holdMs: 30, answer: () => '3' });
    cleanups.push(() => server.close());
    const dir = mkdtempSync(join(tmpdir(), 'sweep-model-limit-'));
    const model = 'bedrock:anthropic.claude-3-haiku-20240307-v1:0';
    const { results, failures } = await runSweep(
      [parseRunSpec({ benchmark: 'sample/abricot', model }), parseRunSpec({ benchmark: 'sample/abricot', model, limit: 20 })],
      {
        home: openHome(join(dir, 'home')),
        packageRoot: packageRoot(),
        providerOptions: { endpointUrl: server.url, concurrency: 8 },
        gridConcurrency: 64,
        jobs: 2,
      },
    );
    expect(failures).toEqual([]);
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed']);
    // Above Bedrock's own 4, never above the 8 asked for, across both cells.
    expect(server.maxInFlight()).toBeGreaterThan(4);
    expect(server.maxInFlight()).toBeLessThanOrEqual(8);
  });
});
