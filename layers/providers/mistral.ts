/**
 * `mistral:<model>`: Mistral's API (La Plateforme), `POST https://api.mistral.ai/v1/chat/completions`
 * with `Authorization: Bearer $MISTRAL_API_KEY`. What it relies on, read in the official
 * client mistralai/client-python @05629d2 (v2.5.1, generated from Mistral's OpenAPI document)
 * and Mistral's docs:
 *
 * - sdkconfiguration.py `SERVERS` (https://api.mistral.ai), chat.py `complete` (path
 *   `/v1/chat/completions`), models/security.py (`api_key`, HTTP bearer); the key from
 *   MISTRAL_API_KEY (the client's README).
 * - models/chatcompletionrequest.py `ChatCompletionRequest`: `max_tokens`, `temperature`,
 *   `top_p`, `stop`, `random_seed` (no `seed`), `n`, `safe_prompt`, `reasoning_effort`; no
 *   `logprobs`/`top_logprobs` and no legacy `/v1/completions` route (only FIM's
 *   `/v1/fim/completions`): chat only, likert by digit-parse (the capabilities table's
 *   `mistral` rule).
 * - The API refuses fields it does not know with 422 `extra_forbidden` "Extra inputs are not
 *   permitted" (Gage-Technologies/mistral-go#2, editor-code-assistant/eca#231 for
 *   `max_completion_tokens`, mistralai/platform-docs-public#7): OpenAI's `seed` is sent as
 *   `random_seed` (the hook below), and `safe_prompt: false` says that no safety prompt is
 *   put in front of the benchmark's own prompt (the field's default, sent explicitly).
 * - docs.mistral.ai/resources/error-glossary: errors are `{object: "error", message, type,
 *   param, code}`; 429, 500, 502, 503 and 504 are transient (retried with back-off, 429 with
 *   its Retry-After, as chat.py's retry codes also list them); 401, 403, 404 and 422 fail fast.
 *
 * No prices are shipped: Mistral's price page is not among the sources read, so `--max-cost`
 * needs `--prices` or `--assume-price` (docs/providers.md).
 */
import { openAiLikeKind } from './openai-like.ts';

/** `-m mistral:mistral-small-latest` (or `mistral:<base-url>#<model>`). */
export const mistral = openAiLikeKind({
  scheme: 'mistral',
  name: "Mistral's API",
  baseUrl: 'https://api.mistral.ai/v1',
  keyEnv: 'MISTRAL_API_KEY',
  keyFrom: 'a key from console.mistral.ai',
  exampleModel: 'mistral-small-latest',
  wire: { rename: { seed: 'random_seed' }, extra: { safe_prompt: false } },
});
