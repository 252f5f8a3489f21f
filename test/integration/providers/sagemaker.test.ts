import { describe, expect, it } from 'vitest';
import { createNetworkProvider } from '#providers/index.ts';
import type { Prompt, Provider } from '#core/models/provider.ts';
import { startSageMakerServer, type FakeServer } from '../../fakes/wire-servers/index.ts';
import { chatRequest, recordingRetries, useProviderSuite } from './harness.ts';

const cleanups = useProviderSuite();

const DIGITS = ['1', '2', '3', '4', '5'];
const favourFour = (context: string, token: string): number => {
  if (!context.includes('astratta')) return -1;
  return token === '4' ? -0.3 : DIGITS.includes(token) ? -2.5 : -1;
};
const PROMPT: Prompt = {
  style: 'chat',
  messages: [{ role: 'user', content: 'Quanto è astratta la parola "libertà"? Rispondi con un numero da 1 a 5.' }],
};

async function setUp(spec: string, extra = {}): Promise<{ server: FakeServer; provider: Provider }> {
  const server = await startSageMakerServer({ endpoints: ['llm-tgi', 'llm-vllm'], logprob: favourFour, answer: () => 'Fa 4.' });
  cleanups.push(() => server.close());
  const provider = createNetworkProvider(spec, { endpointUrl: server.url, ...extra });
  if (!provider) throw new Error('no provider');
  cleanups.push(async () => provider.close?.());
  return { server, provider };
}

describe('sagemaker provider', () => {
  it('sends the TGI payload greedy without temperature or top_p, and without the prompt prefill', async () => {
    const { server, provider } = await setUp('sagemaker:llm-tgi#tgi');

    const g = await provider.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 32, stop: ['\n'], seed: 7 } }));

    expect(server.requests[0]?.path).toBe('/endpoints/llm-tgi/invocations');
    // decoder_input_details would send the whole prompt's prefill back on every generation: asked only when scoring.
    expect(server.requests[0]?.body).toEqual({
      inputs: 'Sei un assistente preciso.\n\nQuanto fa due più due?',
      parameters: { max_new_tokens: 32, do_sample: false, stop: ['\n'], seed: 7, return_full_text: false, details: true },
    });
    expect(g.text).toBe('Fa 4.');
    // Prompt tokens estimated (50 characters / 4); generated: "Fa", " ", "4", ".".
    expect(g.usage).toEqual({ promptTokens: 13, completionTokens: 4 });
    expect(g.finishReason).toBe('eos_token');
  });

  it('samples on TGI with temperature and top_p when asked', async () => {
    const { server, provider } = await setUp('sagemaker:llm-tgi#tgi');

    await provider.generate(chatRequest({ params: { temperature: 0.7, topP: 0.9, maxTokens: 8, stop: [] } }));

    expect((server.requests[0]?.body as { parameters: unknown }).parameters).toMatchObject({ do_sample: true, temperature: 0.7, top_p: 0.9 });
  });

  it('sends the OpenAI messages payload to a vLLM endpoint', async () => {
    const { server, provider } = await setUp('sagemaker:llm-vllm#openai');

    const g = await provider.generate(chatRequest());

    expect(server.requests[0]?.body).toMatchObject({ messages: [{ role: 'system' }, { role: 'user', content: 'Quanto fa due più due?' }], max_tokens: 64 });
    expect(g.text).toBe('Fa 4.');
  });

  it.each([['sagemaker:llm-tgi#tgi'], ['sagemaker:llm-vllm#openai']])('picks the favoured choice from prompt log-probabilities (%s)', async (spec) => {
    const { provider } = await setUp(spec);

    const scores = await provider.scoreChoices?.({ taskId: 'abstractness/3', prompt: PROMPT, choices: DIGITS });

    expect(scores?.logprobs).toEqual([-2.5, -2.5, -2.5, -0.3, -2.5]);
    expect(scores?.usage.promptTokens).toBeGreaterThan(0);
  });

  it('asks vLLM to continue the assistant message holding the choice', async () => {
    const { server, provider } = await setUp('sagemaker:llm-vllm#openai');

    await provider.scoreChoices?.({ taskId: 'abstractness/3', prompt: PROMPT, choices: ['3'] });

    expect(server.requests[0]?.body).toMatchObject({
      messages: [{ role: 'user' }, { role: 'assistant', content: '3' }],
      continue_final_message: true,
      add_generation_prompt: false,
      prompt_logprobs: 0,
    });
  });

  it('retries SageMaker throttling reported as HTTP 400 ThrottlingException', async () => {
    const server = await startSageMakerServer({ failFirst: 1 });
    cleanups.push(() => server.close());
    const retries = recordingRetries();
    const provider = createNetworkProvider('sagemaker:llm-tgi', { endpointUrl: server.url, ...retries.options });

    const g = await provider?.generate(chatRequest());

    expect(g?.attempts).toBe(2);
    expect(retries.delays).toHaveLength(1);
  });

  it('fails fast when the container rejects the payload (ModelError wrapping a 422)', async () => {
    const server = await startSageMakerServer({
      faults: [{ kind: 'status', status: 424, message: 'Input validation error: `stop` supports up to 4 stop sequences' }],
    });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider('sagemaker:llm-tgi#tgi', { endpointUrl: server.url, ...recordingRetries().options });

    const err = await provider?.generate(chatRequest()).catch((e: unknown) => e);

    expect(err).toMatchObject({ retryable: false, message: expect.stringContaining('container status 422') });
    expect(server.requests).toHaveLength(1);
  });
});

describe('sagemaker: the real-time limit and prompt details', () => {
  it('names the 60 s real-time limit instead of retrying a generation that outlives it', async () => {
    const server = await startSageMakerServer({ realtimeTokenLimit: 5, answer: () => 'una risposta lunga che non finisce entro il limite' });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider('sagemaker:llm-tgi#tgi', { endpointUrl: server.url, ...recordingRetries().options });

    // Below the streaming threshold: a real-time invocation, which this container outlives.
    const err = await provider?.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 1000, stop: [] } })).catch((e: unknown) => e);

    expect(err).toMatchObject({ retryable: false, message: expect.stringContaining('60 s') });
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['sagemaker:llm-tgi#tgi', 'Fa 4.'],
    ['sagemaker:llm-vllm#openai', 'Fa 4.'],
  ])('streams a long generation on %s through InvokeEndpointWithResponseStream', async (spec, text) => {
    const server = await startSageMakerServer({ realtimeTokenLimit: 2, answer: () => text });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider(spec, { endpointUrl: server.url });

    const g = await provider?.generate(chatRequest({ params: { temperature: 0, topP: 1, maxTokens: 2048, stop: [] } }));

    expect(server.requests[0]?.path).toMatch(/\/invocations-response-stream$/);
    expect(server.requests[0]?.body).toMatchObject({ stream: true });
    expect(g?.text).toBe(text);
    expect(g?.usage.completionTokens).toBe(4);
  });

  it('asks TGI for decoder_input_details only when scoring', async () => {
    const server = await startSageMakerServer();
    cleanups.push(() => server.close());
    const provider = createNetworkProvider('sagemaker:llm-tgi#tgi', { endpointUrl: server.url });

    await provider?.generate(chatRequest());
    await provider?.scoreChoices?.({ taskId: 't', prompt: chatRequest().prompt, choices: [' 1', ' 2'] });

    const details = server.requests.map((r) => (r.body as { parameters: { decoder_input_details?: boolean } }).parameters.decoder_input_details ?? false);
    expect(details).toEqual([false, true, true]);
  });
});
