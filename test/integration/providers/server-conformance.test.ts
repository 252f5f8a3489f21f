/**
 * Behaviours of the real servers, each reproduced by a fake that cites the server's source,
 * and what the providers must do with them: TGI's `top_p` rule, error events inside a 200
 * stream, TGI without prefill log-probabilities, llama.cpp's refusal of echo, and the retry
 * classes (OpenAI `insufficient_quota`, a container's 429 behind SageMaker's ModelError).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHome, packageRoot } from '#app/local/home.ts';
import { requireManifest, runLocal } from '#app/local/run.ts';
import { readItems } from '#core/report/aggregate.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { createNetworkProvider } from '#providers/index.ts';
import type { Provider } from '#core/models/provider.ts';
import { favourDigit, startOpenAiServer, startSageMakerServer, type FakeServer } from '../../fakes/wire-servers/index.ts';
import { chatRequest, recordingRetries, useProviderSuite } from './harness.ts';

const cleanups = useProviderSuite();
const ROOT = packageRoot();

function open(spec: string, options = {}): Provider {
  const provider = createNetworkProvider(spec, { env: {}, ...options });
  if (!provider) throw new Error('no provider');
  cleanups.push(async () => provider.close?.());
  return provider;
}

async function started<T extends FakeServer>(server: Promise<T>): Promise<T> {
  const s = await server;
  cleanups.push(() => s.close());
  return s;
}

describe('TGI sampling rules (defect 2)', () => {
  it('openai: → TGI generates with the default top_p 1 (TGI rejects top_p >= 1 with 422), sending no top_p', async () => {
    const server = await started(startOpenAiServer({ flavour: 'tgi', answer: () => 'Fa 4.' }));
    const provider = open(`openai:${server.url}#tgi`);

    const g = await provider.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 16, stop: [] } }));

    expect(g.text).toBe('Fa 4.');
    expect(server.requests[0]?.body).not.toHaveProperty('top_p');
  });

  it('still sends a top_p below 1', async () => {
    const server = await started(startOpenAiServer({ flavour: 'tgi', answer: () => 'Fa 4.' }));
    const provider = open(`openai:${server.url}#tgi`);
    await provider.generate(chatRequest({ params: { temperature: 0.7, topP: 0.9, maxTokens: 16, stop: [] } }));
    expect(server.requests[0]?.body).toMatchObject({ top_p: 0.9 });
  });
});

describe('error events inside a 200 stream (defect 3)', () => {
  it.each([
    ['sagemaker:llm#tgi', 'TGI generate_stream {"error", "error_type": "generation"}'],
    ['sagemaker:llm#openai', 'vLLM {"error": {...}} then [DONE]'],
  ])('%s: a stream cut by an error event is retried, never scored as the answer (%s)', async (spec) => {
    const answer = 'fun main() { println("ciao") }';
    const server = await started(startSageMakerServer({ answer: () => answer, streamError: { afterTokens: 3 } }));
    const retries = recordingRetries();
    const provider = open(spec, { endpointUrl: server.url, ...retries.options });

    const g = await provider.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 2048, stop: [] } }));

    expect(server.requests.map((r) => r.path)).toEqual(['/endpoints/llm/invocations-response-stream', '/endpoints/llm/invocations-response-stream']);
    expect(g.text).toBe(answer);
    expect(g.attempts).toBe(2);
  });

  it('a validation error event fails the call at once', async () => {
    const server = await started(startSageMakerServer({ streamError: { afterTokens: 0, times: 5, tgiErrorType: 'validation' } }));
    const provider = open('sagemaker:llm#tgi', { endpointUrl: server.url, ...recordingRetries().options });

    await expect(provider.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 2048, stop: [] } }))).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('(validation)'),
    });
    expect(server.requests).toHaveLength(1);
  });
});

describe('TGI without --enable-prefill-logprobs (defect 7)', () => {
  it('ABRICOT on sagemaker #tgi picks next-token through top_n_tokens, and says why likelihood is out', async () => {
    const server = await started(startSageMakerServer({ prefillLogprobs: false, logprob: favourDigit(() => '3') }));
    const home = openHome(mkdtempSync(join(tmpdir(), 'conformance-')));

    const [result] = await runLocal(parseRunSpec({ benchmark: 'sample/abricot', model: 'sagemaker:abricot#tgi', limit: 4 }), {
      home,
      packageRoot: ROOT,
      providerOptions: { env: {}, endpointUrl: server.url },
      jobs: 2,
    });

    const manifest = await requireManifest(home, result?.run_id ?? '');
    expect(manifest.likert_scoring).toMatchObject({
      mode: 'next-token',
      method: 'tgi-top-n-tokens',
      reason: expect.stringContaining('--enable-prefill-logprobs'),
    });
    const docs = await readItems(home.store, result?.run_id ?? '');
    for (const doc of docs) expect(doc.record.predicted).toBe(3);
    // top_n_tokens stays within TGI's default --max-top-n-tokens of 5.
    const asked = server.requests.map((r) => (r.body as { parameters?: { top_n_tokens?: number } }).parameters?.top_n_tokens).filter((k) => k !== undefined);
    expect(asked.length).toBeGreaterThan(0);
    expect(Math.max(...(asked as number[]))).toBeLessThanOrEqual(5);
  });
});

describe('llama.cpp refuses echo with HTTP 500 (defect 8)', () => {
  it('the capability check takes the 500 as a refusal at once, not as a failure to retry', async () => {
    const server = await started(startOpenAiServer({ flavour: 'llama.cpp', logprob: favourDigit(() => '2') }));
    const retries = recordingRetries();
    const provider = open(`openai:${server.url}#llama`, retries.options);

    const probe = await provider.probeLikert?.();

    expect(server.requests.filter((r) => r.path.endsWith('/completions') && !r.path.endsWith('/chat/completions'))).toHaveLength(1);
    expect(retries.delays).toEqual([]);
    expect(probe?.findings.join(' ')).toMatch(/refuses echo: HTTP 500: Only no echo is supported/);
    expect(probe?.supported.map((s) => s.mode)).toEqual(['next-token']);
  });
});

describe('retry classes (defect 10)', () => {
  it('OpenAI 429 insufficient_quota fails at once: waiting does not restore a quota', async () => {
    const server = await started(
      startOpenAiServer({
        flavour: 'openai-chat',
        faults: [
          { kind: 'status', status: 429, type: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details.' },
        ],
      }),
    );
    const retries = recordingRetries();
    const provider = open(`openai:${server.url}#gpt-4o-mini`, retries.options);

    await expect(provider.generate(chatRequest())).rejects.toMatchObject({
      retryable: false,
      throttled: false,
      message: expect.stringContaining('insufficient_quota'),
    });
    expect(server.requests).toHaveLength(1);
    expect(retries.delays).toEqual([]);
  });

  it('an ordinary 429 is still retried', async () => {
    const server = await started(
      startOpenAiServer({ flavour: 'openai-chat', faults: [{ kind: 'status', status: 429, type: 'requests', message: 'Rate limit reached for requests' }] }),
    );
    const provider = open(`openai:${server.url}#gpt-4o-mini`, recordingRetries().options);
    await expect(provider.generate(chatRequest())).resolves.toMatchObject({ attempts: 2 });
  });
});

describe('OpenAI reasoning models (defect 4)', () => {
  it('o3-mini gets max_completion_tokens and no temperature, top_p or stop; the answer is cut at the stop afterwards', async () => {
    const server = await started(startOpenAiServer({ flavour: 'openai-chat', answer: () => '3\nperché' }));
    const provider = open(`openai:${server.url}#o3-mini`);

    const g = await provider.generate(chatRequest({ params: { temperature: 0, topP: 0.9, maxTokens: 64, stop: ['\n'] } }));

    expect(g.text).toBe('3');
    const body = server.requests[0]?.body as Record<string, unknown>;
    // 64 plus the reasoning it cannot turn off at its lowest effort (capabilities table: 25,000 for o-series "low").
    expect(body).toMatchObject({ max_completion_tokens: 64 + 25_000, reasoning_effort: 'low' });
    for (const field of ['max_tokens', 'temperature', 'top_p', 'stop']) expect(body).not.toHaveProperty(field);
  });
});
