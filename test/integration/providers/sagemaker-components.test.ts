/**
 * `sagemaker:<endpoint>/<component>`: an endpoint that hosts inference components, invoked
 * with InferenceComponentName — checked by the fake in the header the real SDK sends it as —
 * on InvokeEndpoint and on InvokeEndpointWithResponseStream, and through a whole ABRICOT run.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHome, packageRoot } from '#app/local/home.ts';
import { requireManifest, runLocal } from '#app/local/run.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { createNetworkProvider } from '#providers/index.ts';
import { startSageMakerServer, type FakeServer } from '../../fakes/wire-servers/index.ts';
import { chatRequest, useProviderSuite } from './harness.ts';

const cleanups = useProviderSuite();
const HEADER = 'x-amzn-sagemaker-inference-component';

async function endpoint(): Promise<FakeServer> {
  const server = await startSageMakerServer({ inferenceComponents: { shared: ['qwen-ic', 'llama-ic'] }, answer: () => '3' });
  cleanups.push(() => server.close());
  return server;
}

describe('sagemaker inference components', () => {
  it.each([
    ['InvokeEndpoint', 32, '/endpoints/shared/invocations'],
    ['InvokeEndpointWithResponseStream', 2048, '/endpoints/shared/invocations-response-stream'],
  ])('names the component on %s', async (_op, maxTokens, path) => {
    const server = await endpoint();
    const provider = createNetworkProvider('sagemaker:shared/qwen-ic#tgi', { endpointUrl: server.url });

    const g = await provider?.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens, stop: [] } }));

    expect(g?.text).toBe('3');
    expect(server.requests[0]?.path).toBe(path);
    expect(server.requests[0]?.headers[HEADER]).toBe('qwen-ic');
    expect(provider?.model).toBe('shared/qwen-ic');
  });

  it('fails fast when the spec names no component of an endpoint that hosts them', async () => {
    const server = await endpoint();
    const provider = createNetworkProvider('sagemaker:shared#tgi', { endpointUrl: server.url });

    const err = await provider?.generate(chatRequest()).then(
      () => undefined,
      (e: unknown) => e as Error & { retryable: boolean },
    );

    expect(err?.message).toMatch(/ValidationError.*inference components/);
    expect(err?.retryable).toBe(false);
    expect(server.requests[0]?.headers[HEADER]).toBeUndefined();
  });

  it.each([
    ['sagemaker:shared/', /component name/],
    ['sagemaker:shared/a/b#tgi', /component name/],
    ['sagemaker:shared/bad_name#tgi', /component name/],
  ])('refuses the malformed spec %s', (spec, reason) => {
    expect(() => createNetworkProvider(spec, {})).toThrow(reason);
  });

  it('waits for a component scaled to zero (ValidationError "no capacity") and answers once a copy is in service', async () => {
    const server = await startSageMakerServer({ inferenceComponents: { shared: ['cold-ic'] }, scaledToZero: { 'cold-ic': 3 }, answer: () => '3' });
    cleanups.push(() => server.close());
    const waits: number[] = [];
    const provider = createNetworkProvider('sagemaker:shared/cold-ic#tgi', {
      endpointUrl: server.url,
      sleep: async (ms) => void waits.push(ms),
      random: () => 0,
    });

    const g = await provider?.generate(chatRequest());

    expect(g?.text).toBe('3');
    expect(g?.attempts).toBe(4);
    // Each retry after the scale-out poll interval, not an exponential backoff of a few hundred ms.
    expect(waits).toEqual([15_000, 15_000, 15_000]);
  });

  it('gives up on a component that stays at zero once ten minutes of waiting are spent (not the shorter throttling budget), naming why', async () => {
    const server = await startSageMakerServer({ inferenceComponents: { shared: ['cold-ic'] }, scaledToZero: { 'cold-ic': 1000 }, answer: () => '3' });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider('sagemaker:shared/cold-ic#tgi', {
      endpointUrl: server.url,
      waitBudgetMs: 60_000,
      sleep: async () => {},
      random: () => 0,
    });

    const err = await provider?.generate(chatRequest()).then(
      () => undefined,
      (e: unknown) => e as Error & { retryable: boolean },
    );

    // Asked every 15 s: 40 waits fill SCALE_FROM_ZERO_BUDGET_MS (600 s), so 41 attempts.
    expect(err?.message).toMatch(/no capacity.*scaling out from zero.*after 41 attempts/);
    expect(server.requests).toHaveLength(41);
  });

  it('runs ABRICOT end to end on a component, recorded under <endpoint>/<component>', async () => {
    const server = await endpoint();
    const home = openHome(mkdtempSync(join(tmpdir(), 'sm-ic-')));

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: 'sagemaker:shared/llama-ic#tgi', limit: 4 }), {
      home,
      packageRoot: packageRoot(),
      providerOptions: { endpointUrl: server.url },
      jobs: 2,
    });

    expect(result?.status).toBe('completed');
    const manifest = await requireManifest(home, result?.run_id ?? '');
    expect(manifest.model).toMatchObject({ kind: 'sagemaker', name: 'shared/llama-ic' });
    expect(manifest.likert_mode).toBe('likelihood');
    expect(server.requests.every((r) => r.headers[HEADER] === 'llama-ic')).toBe(true);
  });
});
