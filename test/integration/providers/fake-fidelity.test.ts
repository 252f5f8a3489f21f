/**
 * The fakes answer as the real servers do where a review against their source found them
 * wrong: vLLM's non-streamed `text_offset` (from 0), `top_logprobs` size (`logprobs + 1`),
 * `--max-logprobs` and `max_tokens: 0` refusals; TGI's `top_n_tokens` cap on chat even without
 * `logprobs`, its temperature rule and its in-stream refusal of `decoder_input_details`;
 * llama.cpp's `logprobs` as n_probs. Each expectation names the source it comes from.
 */
import { describe, expect, it } from 'vitest';
import {
  startAnthropicServer,
  startAzureOpenAiServer,
  startBedrockServer,
  startGeminiServer,
  startOllamaServer,
  startOpenAiServer,
  startSageMakerServer,
  type FakeServer,
} from '../../fakes/wire-servers/index.ts';
import { useProviderSuite } from './harness.ts';

const cleanups = useProviderSuite();

async function started<T extends FakeServer>(server: Promise<T>): Promise<T> {
  const s = await server;
  cleanups.push(() => s.close());
  return s;
}

async function post(url: string, body: unknown): Promise<{ status: number; json: Record<string, unknown>; bytes: Buffer }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const bytes = Buffer.from(await res.arrayBuffer());
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
  } catch {
    // an event stream
  }
  return { status: res.status, json, bytes };
}

interface LegacyLogprobs {
  tokens: string[];
  text_offset: number[];
  top_logprobs: (Record<string, number> | null)[];
}
const logprobsOf = (json: Record<string, unknown>) => (json.choices as { logprobs: LegacyLogprobs | null }[])[0]?.logprobs;

/** The payloads of an AWS event stream, joined (prelude 12 bytes, headers, payload, CRC 4). */
function eventPayloads(bytes: Buffer): string {
  let out = '';
  for (let at = 0; at < bytes.length;) {
    const total = bytes.readUInt32BE(at);
    const headers = bytes.readUInt32BE(at + 4);
    out += bytes.subarray(at + 12 + headers, at + total - 4).toString('utf8');
    at += total;
  }
  return out;
}

describe('vLLM /v1/completions (serving.py @cc139d8 _create_completion_logprobs)', () => {
  it.each([
    ['toy tokenizer', {}],
    ['Llama 3 tokenizer', { tokenizer: 'llama3' as const }],
  ])('%s: without echo, text_offset starts at 0, not at the prompt length', async (_name, extra) => {
    const server = await started(startOpenAiServer({ flavour: 'vllm', answer: () => 'Fa 4', ...extra }));
    const { status, json } = await post(`${server.url}/completions`, { model: 'm', prompt: 'Risposta:', max_tokens: 3, logprobs: 0 });
    expect(status).toBe(200);
    expect(logprobsOf(json)?.text_offset[0]).toBe(0);
  });

  it.each([
    ['toy tokenizer', {}],
    ['Qwen 3 tokenizer', { tokenizer: 'qwen3' as const }],
  ])('%s: each top_logprobs entry holds the token and its `logprobs` best alternatives (logprobs + 1)', async (_name, extra) => {
    const server = await started(startOpenAiServer({ flavour: 'vllm', logprob: (_c, t) => (t === '4' ? -0.1 : t === '3' ? -0.5 : -4), ...extra }));
    const { json } = await post(`${server.url}/completions`, { model: 'm', prompt: 'Risposta: 2', max_tokens: 0, echo: true, logprobs: 2 });
    const lp = logprobsOf(json);
    expect(lp?.top_logprobs[0]).toBeNull();
    const last = lp?.top_logprobs.at(-1) ?? {};
    expect(Object.keys(last)).toHaveLength(3);
    expect(Object.keys(last)[0]).toBe(lp?.tokens.at(-1));
    expect(Object.keys(last)).toEqual(expect.arrayContaining(['4', '3']));
  });

  it('logprobs above --max-logprobs (20) is a 400 naming the parameter (input_processor.py _validate_logprobs)', async () => {
    const server = await started(startOpenAiServer({ flavour: 'vllm' }));
    const { status, json } = await post(`${server.url}/completions`, { model: 'm', prompt: 'x', max_tokens: 0, echo: true, logprobs: 21 });
    expect(status).toBe(400);
    expect(json.error).toEqual({
      message: 'Requested sample logprobs of 21, which is greater than max allowed: 20 (parameter=logprobs, value=21)',
      type: 'BadRequestError',
      param: 'logprobs',
      code: 400,
    });
    const chat = await post(`${server.url}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'x' }], logprobs: true, top_logprobs: 21 });
    expect(chat.status).toBe(400);
    const asked = await post(`${server.url}/completions`, { model: 'm', prompt: 'x', max_tokens: 0, echo: true, logprobs: 20 });
    expect(asked.status).toBe(200);
  });

  it('max_tokens 0 without echo is a 400 (SamplingParams: at least 1)', async () => {
    const server = await started(startOpenAiServer({ flavour: 'vllm', tokenizer: 'llama3' }));
    const { status, json } = await post(`${server.url}/completions`, { model: 'm', prompt: 'x', max_tokens: 0 });
    expect(status).toBe(400);
    expect((json.error as { message: string }).message).toBe('max_tokens must be at least 1, got 0.');
  });
});

describe('TGI (v3.3.7)', () => {
  it('chat top_logprobs above --max-top-n-tokens is a 422 even without logprobs (lib.rs try_into_generate)', async () => {
    const server = await started(startOpenAiServer({ flavour: 'tgi' }));
    const { status, json } = await post(`${server.url}/chat/completions`, { model: 'tgi', messages: [{ role: 'user', content: 'x' }], top_logprobs: 6 });
    expect(status).toBe(422);
    expect(json).toEqual({ error: 'Input validation error: `top_n_tokens` must be >= 0 and <= 5. Given: 6', error_type: 'validation' });
  });

  it('temperature 0 is refused with do_sample false too (validation.rs validate)', async () => {
    const server = await started(startSageMakerServer());
    const { status, json } = await post(`${server.url}/endpoints/llm/invocations`, { inputs: 'x', parameters: { do_sample: false, temperature: 0 } });
    expect(status).toBe(424);
    expect(json).toMatchObject({ OriginalStatusCode: 422, OriginalMessage: 'Input validation error: `temperature` must be strictly positive' });
  });

  it('a stream asking decoder_input_details is a 200 whose one event is the validation error (server.rs generate_stream)', async () => {
    const server = await started(startSageMakerServer());
    const { status, bytes } = await post(`${server.url}/endpoints/llm/invocations-response-stream`, {
      inputs: 'x',
      parameters: { decoder_input_details: true },
    });
    expect(status).toBe(200);
    const sse = eventPayloads(bytes);
    expect(sse.trim().split('\n\n')).toHaveLength(1);
    expect(JSON.parse(sse.trim().replace(/^data:/, ''))).toEqual({
      error: 'Input validation error: `decoder_input_details` == true is not supported when streaming tokens',
      error_type: 'validation',
    });
  });
});

describe('llama.cpp /v1/completions logprobs (server-task.cpp params_from_json_cmpl, to_json_oaicompat)', () => {
  it('logprobs is n_probs: each generated token carries that many alternatives; 0 gives null', async () => {
    const server = await started(startOpenAiServer({ flavour: 'llama.cpp', answer: () => 'Fa 4' }));
    const two = await post(`${server.url}/completions`, { model: 'm', prompt: 'x', max_tokens: 3, logprobs: 2 });
    const content = (logprobsOf(two.json) as unknown as { content: { top_logprobs: unknown[] }[] }).content;
    expect(content.length).toBeGreaterThan(0);
    for (const c of content) expect(c.top_logprobs).toHaveLength(2);
    const none = await post(`${server.url}/completions`, { model: 'm', prompt: 'x', max_tokens: 3, logprobs: 0 });
    expect(logprobsOf(none.json)).toBeNull();
  });
});

describe('Ollama (fb30760, OpenAI-compatible routes)', () => {
  it('chat top_logprobs outside 0–20 is a 400 with or without logprobs (routes.go ChatHandler; openai.go NewError)', async () => {
    const server = await started(startOllamaServer());
    const messages = [{ role: 'user', content: 'x' }];
    for (const asked of [{ top_logprobs: -1 }, { top_logprobs: 21 }, { logprobs: true, top_logprobs: 21 }]) {
      const { status, json } = await post(`${server.url}/v1/chat/completions`, { model: 'llama3.2:3b', messages, ...asked });
      expect(status).toBe(400);
      expect(json).toEqual({ error: { message: 'top_logprobs must be between 0 and 20', type: 'invalid_request_error', param: null, code: null } });
    }
    expect((await post(`${server.url}/v1/chat/completions`, { model: 'llama3.2:3b', messages, logprobs: true, top_logprobs: 20 })).status).toBe(200);
  });
});

describe('Azure OpenAI (the azure row)', () => {
  it('answers its own refusals as {code, message} and the model’s in OpenAI’s body, as the single-server fake passed them through', async () => {
    const server = await started(startAzureOpenAiServer({ apiKey: 'k', deployments: { chat: 'gpt-4o' } }));
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'api-key': 'k' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as unknown };
    };
    const messages = [{ role: 'user', content: 'x' }];
    const missing = await call('/openai/v1/chat/completions', { model: 'nope', messages });
    expect(missing).toMatchObject({ status: 404, json: { error: { code: 'DeploymentNotFound' } } });
    expect(Object.keys((missing.json as { error: object }).error).sort()).toEqual(['code', 'message']);
    const tooMany = await call('/openai/deployments/chat/chat/completions?api-version=2024-10-21', { messages, logprobs: true, top_logprobs: 21 });
    expect(tooMany).toMatchObject({
      status: 400,
      json: { error: { type: 'invalid_request_error', message: expect.stringMatching(/^Invalid 'top_logprobs': integer above maximum value/) } },
    });
  });
});

describe('every row of the OpenAI-compatible fake', () => {
  it('Gemini refuses top_logprobs outside 0–20 with logprobs, in Google’s array-wrapped error (page-assist#406)', async () => {
    const server = await started(startGeminiServer({ apiKey: 'k', models: { 'gemini-2.0-flash': { logprobs: true } } }));
    const ask = (k: number) =>
      fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
        body: JSON.stringify({ model: 'gemini-2.0-flash', messages: [{ role: 'user', content: 'x' }], logprobs: true, top_logprobs: k }),
      });
    for (const k of [-1, 21]) {
      const res = await ask(k);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual([{ error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' } }]);
    }
    expect((await ask(5)).status).toBe(200);
  });

  it('routes on the path alone: a query string does not turn a served route into a 404 (routers match the path)', async () => {
    const server = await started(startOpenAiServer({ flavour: 'vllm' }));
    const { status, json } = await post(`${server.url}/chat/completions?trace=1`, { model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(status).toBe(200);
    expect((json.choices as { message: { content: string } }[])[0]?.message.content).toBe('ok');
  });

  it('a reasoning model asked with no output limit thinks and still answers in full (the limit is what thinking eats into)', async () => {
    const server = await started(startOpenAiServer({ flavour: 'openai-chat', answer: () => 'the answer is 4', reasoning: { low: 500 } }));
    const { status, json } = await post(`${server.url}/chat/completions`, {
      model: 'o3-mini',
      reasoning_effort: 'low',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(status).toBe(200);
    expect(json.choices).toMatchObject([{ message: { content: 'the answer is 4' }, finish_reason: 'stop' }]);
    expect(json.usage).toMatchObject({ completion_tokens_details: { reasoning_tokens: 500 } });
  });
});

describe('Bedrock Converse (API reference, InferenceConfiguration)', () => {
  it('an empty stop sequence breaks the service constraint (minimum length 1) for every model, Claude or not', async () => {
    const server = await started(startBedrockServer());
    for (const model of ['meta.llama3-70b-instruct-v1:0', 'anthropic.claude-3-5-sonnet-20240620-v1:0']) {
      const res = await fetch(`${server.url}/model/${model}/converse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'x' }] }], inferenceConfig: { stopSequences: ['\n', ''] } }),
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('x-amzn-errortype')).toMatch(/^ValidationException/);
      expect(((await res.json()) as { message: string }).message).toMatch(/inferenceConfig\.stopSequences.*length greater than or equal to 1/);
    }
  });
});

describe('Anthropic Messages API stop sequences', () => {
  it('an empty stop sequence is "non-empty", a whitespace-only one "non-whitespace", first offender first', async () => {
    const server = await started(startAnthropicServer());
    const ask = async (stops: string[]) => {
      const res = await fetch(`${server.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-3-5-sonnet-20241022', max_tokens: 8, messages: [{ role: 'user', content: 'x' }], stop_sequences: stops }),
      });
      return { status: res.status, message: ((await res.json()) as { error: { message: string } }).error.message };
    };
    expect(await ask(['', '\n'])).toEqual({ status: 400, message: 'stop_sequences: each stop sequence must be non-empty' });
    expect(await ask(['\n'])).toEqual({ status: 400, message: 'stop_sequences: each stop sequence must contain non-whitespace' });
  });
});
