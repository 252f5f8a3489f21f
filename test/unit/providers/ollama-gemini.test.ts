/**
 * `ollama:` and `gemini:` without a server: their specs, OLLAMA_HOST read as the ollama CLI
 * reads it, their capability rules, and how their error answers are classified.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '#core/errors.ts';
import { adaptParams, capabilitiesOf, shippedCapabilityTable } from '#providers/capabilities.ts';
import { httpFailure } from '#providers/failures.ts';
import { errorCode, retryDelayOf, serverMessage } from '#providers/http-json.ts';
import { ollamaHost } from '#providers/ollama.ts';
import { PROVIDER_REGISTRY, parseNetworkSpec } from '#providers/index.ts';
import { findModelPrice, shippedPriceTable } from '#providers/prices.ts';

describe('ollama: and gemini: specs', () => {
  it.each([
    ['ollama:llama3.2:3b', { scheme: 'ollama', model: 'llama3.2:3b' }],
    ['ollama:http://gpu-box:11434#qwen3:8b', { scheme: 'ollama', baseUrl: 'http://gpu-box:11434', model: 'qwen3:8b' }],
    ['ollama:http://gpu-box:11434/v1/#qwen3:8b', { scheme: 'ollama', baseUrl: 'http://gpu-box:11434', model: 'qwen3:8b' }],
    ['gemini:gemini-2.5-flash', { scheme: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai', model: 'gemini-2.5-flash' }],
    ['gemini:models/gemini-2.5-pro', { scheme: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai', model: 'gemini-2.5-pro' }],
    ['gemini:http://127.0.0.1:9/v1beta/openai/#gemini-3.5-flash', { scheme: 'gemini', baseUrl: 'http://127.0.0.1:9/v1beta/openai', model: 'gemini-3.5-flash' }],
  ])('parses %s', (spec, expected) => {
    expect(parseNetworkSpec(spec)).toEqual(expected);
  });

  it.each([
    ['ollama:', /empty model name/],
    ['ollama:not a url#llama3', /is not a URL/],
    ['gemini:', /empty model name/],
    ['gemini:ftp://x#gemini-2.5-flash', /must be http\(s\)/],
  ])('rejects %s naming the spec', (spec, reason) => {
    expect(() => parseNetworkSpec(spec)).toThrow(InputError);
    expect(() => parseNetworkSpec(spec)).toThrow(reason);
  });

  it('refuses ollama:<model> in the deployed pipeline, which has no local server, and takes ollama:<base-url>#<model>', () => {
    const kind = PROVIDER_REGISTRY.byScheme('ollama');
    expect(() => kind?.checkCloud?.('llama3.2:3b')).toThrow(/needs ollama:<base-url>#<model>/);
    expect(() => kind?.checkCloud?.('http://10.0.0.5:11434#llama3.2:3b')).not.toThrow();
  });

  it('prices gemini: from the shipped table and leaves ollama: to the user’s prices', () => {
    expect(PROVIDER_REGISTRY.byScheme('gemini')).toMatchObject({ billed: true, tablePriced: true });
    expect(PROVIDER_REGISTRY.byScheme('ollama')).toMatchObject({ billed: true, tablePriced: false });
    expect(findModelPrice(shippedPriceTable(), 'gemini-2.5-flash')).toMatchObject({ input_per_mtok: 0.3, output_per_mtok: 2.5 });
    // Review of issue 18 (transcription of Google's pricing page, 2026-10-07): dated, marked unverified.
    expect(findModelPrice(shippedPriceTable(), 'gemini-3.8-flash')).toMatchObject({ input_per_mtok: 0.75, output_per_mtok: 3.75, note: /2027-01-01/ });
    expect(findModelPrice(shippedPriceTable(), 'gemini-3.5-flash-lite')).toMatchObject({ input_per_mtok: 0.3, output_per_mtok: 2.5, source: /^UNVERIFIED/ });
  });
});

describe('ollamaHost (envconfig/config.go Host, as the CLI reads it; loopback for a bind address as ConnectableHost @fb30760)', () => {
  it.each([
    [undefined, 'http://127.0.0.1:11434'],
    ['', 'http://127.0.0.1:11434'],
    ['0.0.0.0', 'http://127.0.0.1:11434'],
    ['0.0.0.0:8080', 'http://127.0.0.1:8080'],
    ['gpu-box', 'http://gpu-box:11434'],
    ['gpu-box:9999', 'http://gpu-box:9999'],
    ['http://gpu-box', 'http://gpu-box:80'],
    ['https://ollama.example.org', 'https://ollama.example.org:443'],
    ['https://proxy.example.org/ollama', 'https://proxy.example.org:443/ollama'],
    ['[::]:11434', 'http://[::1]:11434'],
    ['ollama.com', 'https://ollama.com:443'],
    ['gpu-box:99999', 'http://gpu-box:11434'],
    // Edge inputs, as config.go Host reads them (Var strips quotes; SplitHostPort; a bad port → default).
    ['example.com:', 'http://example.com:11434'],
    ['gpu-box:abc', 'http://gpu-box:11434'],
    ['"0.0.0.0:11434"', 'http://127.0.0.1:11434'],
    ["'gpu-box:1234'", 'http://gpu-box:1234'],
    [':8080', 'http://127.0.0.1:8080'],
    ['http://gpu-box:-1', 'http://gpu-box:80'],
    ['::1', 'http://[::1]:11434'],
  ])('reads OLLAMA_HOST=%s as %s', (value, url) => {
    expect(ollamaHost(value)).toBe(url);
  });
});

describe('capability rules', () => {
  const table = shippedCapabilityTable();

  it('says Ollama’s /v1/completions cannot echo prompt log-probabilities, citing the source', () => {
    const caps = capabilitiesOf(table, 'ollama', 'llama3.2:3b');
    expect(caps.noEcho).toMatch(/ignores `echo`.*fb30760/);
    // GenerateHandler templates /v1/completions' prompt (no raw mode): completion prompts go in chat form.
    expect(caps.completion).toBe(false);
    expect(caps.logprobs).toBe(true);
    // A thinking model thinks unless told not to (routes.go ChatHandler); "none" is Think=false.
    expect(caps.reasoningEffort).toBe('none');
  });

  it('makes Gemini chat-only with at most 5 stop sequences; thinking off where it can be, lowest and warned where not', () => {
    const flash25 = capabilitiesOf(table, 'gemini', 'gemini-2.5-flash');
    const lite25 = capabilitiesOf(table, 'gemini', 'gemini-2.5-flash-lite');
    const pro25 = capabilitiesOf(table, 'gemini', 'gemini-2.5-pro');
    const flash35 = capabilitiesOf(table, 'gemini', 'gemini-3.5-flash');
    const old = capabilitiesOf(table, 'gemini', 'gemini-1.5-flash');
    expect(flash25).toMatchObject({ completion: false, maxStopSequences: 5, thinkingInMaxTokens: false, reasoningEffort: 'none' });
    expect(lite25).toMatchObject({ thinkingInMaxTokens: false, reasoningEffort: 'none' });
    expect(pro25).toMatchObject({ thinkingInMaxTokens: true, reasoningEffort: 'low' });
    expect(flash35).toMatchObject({ thinkingInMaxTokens: true, reasoningEffort: 'low' });
    expect(old).toMatchObject({ completion: false, maxStopSequences: 5, thinkingInMaxTokens: false });
    expect(old.reasoningEffort).toBeUndefined();
    const params = { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] };
    // Thinking it cannot turn off: the limit is raised by the lowest thinking budget (1,024 at "low"), and the manifest says so.
    const raised = adaptParams(pro25, params, 'gemini-2.5-pro');
    expect(raised.params.maxTokens).toBe(4 + 1024);
    expect(raised.warnings.join('\n')).toMatch(/max tokens 4 raised to 1028: gemini-2\.5-pro cannot turn its thinking off/);
    expect(adaptParams(flash25, params).warnings).toEqual([]);
  });
});

describe('error answers', () => {
  const NOW = 1_000_000;

  it('backs off on Ollama’s 503 "server busy" (OLLAMA_MAX_QUEUE) and Gemini’s overloaded 503, but not on any 503', () => {
    expect(httpFailure(503, 'server busy, please try again.  maximum pending requests exceeded', undefined, NOW)).toMatchObject({
      retryable: true,
      throttled: true,
    });
    expect(httpFailure(503, 'The model is overloaded. Please try again later.', undefined, NOW)).toMatchObject({ retryable: true, throttled: true });
    expect(httpFailure(503, 'This model is currently experiencing high demand. Spikes in demand are usually temporary.', undefined, NOW)).toMatchObject({
      throttled: true,
    });
    expect(httpFailure(503, 'Service Unavailable', undefined, NOW)).toMatchObject({ retryable: true, throttled: false });
  });

  const wrapped = JSON.stringify([
    {
      error: {
        code: 429,
        message: 'Resource has been exhausted (e.g. check quota).',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '46s' }],
      },
    },
  ]);

  it('reads the message and RetryInfo delay of Gemini’s array-wrapped error body', () => {
    expect(serverMessage(wrapped)).toBe('Resource has been exhausted (e.g. check quota).');
    expect(retryDelayOf(wrapped)).toBe(46_000);
    expect(errorCode(wrapped)).toBeUndefined();
  });

  it('reads Ollama’s OpenAI-shaped error (openai.go NewError)', () => {
    const body = JSON.stringify({ error: { message: 'top_logprobs must be between 0 and 20', type: 'invalid_request_error', param: null, code: null } });
    expect(serverMessage(body)).toBe('top_logprobs must be between 0 and 20');
    expect(retryDelayOf(body)).toBeUndefined();
  });
});
