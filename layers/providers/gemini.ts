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
import { openAiLikeKind, type OpenAiLikeSpec } from './openai-like.ts';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta/openai';

export type GeminiSpec = OpenAiLikeSpec<'gemini'>;

/** `-m gemini:gemini-2.5-flash` (or `gemini:<base-url>#gemini-2.5-flash`). */
export const gemini = openAiLikeKind({
  scheme: 'gemini',
  name: 'the Gemini API',
  description: "Google's Gemini API (OpenAI-compatible endpoint); key from GEMINI_API_KEY",
  baseUrl: GEMINI_BASE_URL,
  keyEnv: 'GEMINI_API_KEY',
  keyFrom: 'a key from Google AI Studio',
  exampleModel: 'gemini-2.5-flash',
  // The API prefixes "models/" itself when the name has no slash: the bare id is the price table's.
  modelId: (given) => given.replace(/^models\//, ''),
});
