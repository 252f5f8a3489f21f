/**
 * `gemini:<model>`: Google's Gemini API through its OpenAI-compatible endpoint. What it relies
 * on, from Google's docs (read 2026-12):
 *
 * - "OpenAI compatibility" (ai.google.dev/gemini-api/docs/openai): base URL
 *   https://generativelanguage.googleapis.com/v1beta/openai/, the key as
 *   `Authorization: Bearer $GEMINI_API_KEY`, `POST chat/completions` (no legacy completions
 *   route); `reasoning_effort` maps onto the model's thinking, which 2.5 Pro and Gemini 3
 *   cannot turn off.
 * - "Troubleshooting" (ai.google.dev/gemini-api/docs/troubleshooting) and "Billing" (…/docs/billing): 429
 *   RESOURCE_EXHAUSTED past a rate limit, 500 INTERNAL, 503 UNAVAILABLE (overloaded) — all
 *   retried, 429 and 503 backing the concurrency off; 400 INVALID_ARGUMENT, 403, 404 fail
 *   fast. On this endpoint an error body may come wrapped in a JSON array (`[{"error": …}]`,
 *   as reported in n4ze3m/page-assist#406); http-json.ts reads both.
 * - Model rules (chat only, at most 5 stop sequences, thinking counted in `max_tokens`) are in
 *   the capabilities table. Log-probabilities: the capability check asks for the next token's
 *   top_logprobs; models where "Logprobs is not enabled" (400) get digit-parse, with that
 *   reason recorded.
 *
 * Priced from the shipped table by model id. `gemini:<base-url>#<model>` points it at another
 * server speaking the same API (a proxy, or a test's loopback fake).
 */
import { InputError } from '#core/errors.ts';
import { badSpec, httpBaseUrl, networkKind } from './network-kind.ts';
import { OpenAiProvider } from './openai.ts';
import { boundKey } from './options.ts';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta/openai';
const DEFAULT_KEY_ENV = 'GEMINI_API_KEY';

export interface GeminiSpec {
  scheme: 'gemini';
  baseUrl: string;
  model: string;
}

/** `-m gemini:gemini-2.5-flash` (or `gemini:<base-url>#gemini-2.5-flash`). */
export const gemini = networkKind<GeminiSpec>({
  scheme: 'gemini',
  usage: 'gemini:[<base-url>#]<model>',
  description: "Google's Gemini API (OpenAI-compatible endpoint); key from GEMINI_API_KEY",
  billed: true,
  tablePriced: true,
  answersWithReference: false,
  options: ['api-key-env'],
  iam: [],
  parse(spec, rest) {
    const hash = rest.lastIndexOf('#');
    // The API prefixes "models/" itself when the name has no slash: the bare id is the price table's.
    const model = rest.slice(hash + 1).replace(/^models\//, '');
    if (model === '') throw badSpec(spec, 'empty model name; expected gemini:<model>, e.g. gemini:gemini-2.5-flash');
    if (hash < 0) return { scheme: 'gemini', baseUrl: GEMINI_BASE_URL, model };
    const baseUrl = rest.slice(0, hash).replace(/\/+$/, '');
    return { scheme: 'gemini', baseUrl: httpBaseUrl(spec, baseUrl), model };
  },
  open(spec, parsed, options) {
    // --api-key-env names the variable; its default (OPENAI_API_KEY) stands for "not given" here.
    const keyEnv = options.apiKeyEnv === 'OPENAI_API_KEY' ? DEFAULT_KEY_ENV : options.apiKeyEnv;
    const key = boundKey(options, keyEnv, parsed.baseUrl);
    if (key.value === undefined || key.value === '') {
      throw new InputError(
        `environment variable ${keyEnv} is not set: the Gemini API needs a key from Google AI Studio (or name another variable with --api-key-env)`,
        {
          field: 'apiKeyEnv',
        },
      );
    }
    const { baseUrl, model } = parsed;
    return new OpenAiProvider(spec, baseUrl, model, options, {
      kind: 'gemini',
      url: (path) => `${baseUrl}${path}`,
      headers: {},
      key: { bound: key, header: (value) => ({ authorization: `Bearer ${value}` }) },
    });
  },
});
