/**
 * The Ollama runner and scheduler behind the `ollama` row of the one OpenAI-compatible fake
 * (openai-server.ts `VENDORS.ollama`: the routes, the model check, the error bodies, empty
 * messages and the `top_logprobs` range). Ollama's provider speaks its OpenAI-compatible
 * routes `POST /v1/chat/completions` and `POST /v1/completions`, not the native /api/chat; what
 * stays here is what Ollama's server does behind them, read from ollama/ollama at fb30760
 * (2026-08-21) (server/routes.go `GenerateRoutes`: middleware/openai.go
 * `ChatMiddleware`/`CompletionsMiddleware` in front of `ChatHandler`/`GenerateHandler`).
 * Tokens are the real Llama-3 tokenizer's (real-tokenizers.ts). What it reproduces:
 *
 * - Requests: openai/openai.go `FromChatRequest`/`FromCompleteRequest`: `max_tokens` →
 *   `num_predict`, `stop` a string or a list (a non-string item in a completions `stop` is a
 *   400 "invalid type for 'stop' field: …"), temperature 1.0 when absent. `CompletionRequest`
 *   has no `echo` field: it is ignored.
 * - Prompts: `/v1/completions` is `GenerateHandler` without `raw` (openai.go `CompletionRequest`
 *   has no `raw` field; `FromCompleteRequest` never sets it), so the prompt goes through the
 *   model's template as a user turn (`chatPrompt`): `answer` is given that templated text, and
 *   an instruct model answers it as a chat turn, not as a continuation. Chat messages go
 *   through the same template. For
 *   Llama 3 that is Meta's header/eot template; `usage.prompt_tokens` is the templated
 *   prompt's token count (openai.go `ToUsage`/`ToUsageGenerate`: `PromptEvalCount`) and
 *   `completion_tokens` the generated count (`EvalCount`).
 * - Answers: openai.go `ToChatCompletion` (`system_fingerprint: "fp_ollama"`, `logprobs`
 *   only when the runner returned some: `{content: [{token, logprob, top_logprobs}]}`, the
 *   chat shape) and `ToCompletion` (`choices[0].text`, never `logprobs`, never the prompt).
 *   `finish_reason` is the runner's done reason, "stop" or "length".
 * - Log-probabilities: chat `logprobs: true` asks the runner for them; `top_logprobs`
 *   alternatives come only when `top_logprobs` > 0 (llm/llama_server.go `convertLogprobs`,
 *   `includeTop`), each token spelled as llama-server's decoded piece (" " and "4", not "Ġ").
 *   `top_logprobs` outside 0–20 is a 400 "top_logprobs must be between 0 and 20"
 *   (routes.go `ChatHandler`, `GenerateHandler`). `logprobs: false` plays a server whose
 *   runner returns none (the fields are accepted and nothing comes back).
 * - Errors: a handler's `{"error": "…"}` rewritten by middleware/openai.go
 *   `BaseWriter.writeError` into openai.go `NewError`: `{error: {message, type, param: null,
 *   code: null}}`, type `invalid_request_error` (400), `not_found_error` (404) or `api_error`.
 *   An unknown model is 404 "model 'x' not found" (routes.go `ChatHandler`).
 * - Thinking: a model with the thinking capability thinks unless the request says not to
 *   (routes.go `ChatHandler`/`GenerateHandler`: `req.Think == nil` → true); `reasoning_effort`
 *   "none" is Think=false, other values a level, anything else a 400 "invalid reasoning
 *   value: …" (openai.go `thinkFromReasoningEffort`). The thinking goes to `message.reasoning`
 *   (`ToChatCompletion`), counts against `num_predict`, and its tokens' log-probabilities come
 *   first in `logprobs.content` (routes.go ChatHandler appends every runner chunk's logprobs).
 * - `version: '0.12.3'` (any of v0.11.5–v0.12.3): openai/openai.go `FromChatRequest` passes
 *   `reasoning_effort` on as the string think value (`api.ThinkValue{Value: effort}`), and
 *   server/routes.go `ChatHandler` answers a string think value for a model whose parser is not
 *   harmony with 400 `think value "none" is not supported for this model` (read at tag v0.12.3;
 *   v0.12.4, ollama@1b91d4dd, maps "none" to Think=false). The middleware rewrites it into
 *   `{error: {message, type: "api_error", …}}` with the 400 status kept (openai.go
 *   `BaseWriter.writeError` encodes `NewError(500, …)`, whose type is api_error).
 * - `version: '0.30.0'`: the llama-server runner reports `prompt_eval_count` as llama-server's
 *   `timings.prompt_n`, the prompt tokens it evaluated, leaving out the `cache_n` it reused from
 *   the previous request in the slot (llm/llama_server.go @v0.30.0 `Chat`; fixed in v0.30.1 by
 *   ollama@35fa277f "include cached prompt tokens in llama-server counts", #16414). The fake
 *   keeps one slot: the common prefix with the previous prompt is cached, at least one token
 *   is evaluated. `GET /api/version` answers `{"version": …}` (routes.go).
 * - The scheduler queue: while the model is loading (`loadMs`), requests wait in
 *   `pendingReqCh`, a channel of `OLLAMA_MAX_QUEUE` (`maxQueue`) slots; one arriving when it is
 *   full gets `ErrMaxQueue` (server/sched.go `Scheduler.getRunner`), which routes.go
 *   `handleScheduleError` answers 503 "server busy, please try again.  maximum pending requests
 *   exceeded". Once loaded, requests go straight to the runner (`useLoadedRunner`): no 503.
 */
import type { FakeServer, FaultOptions } from './http-server.ts';
import { startOpenAiServer, VENDORS } from './openai-server.ts';
import { familyChat } from './family-chat.ts';
import { decodeIds, describeTokens, encodePrompt, encodeText, type TokenizerName } from './real-tokenizers.ts';
import { flatLogprob, type LogprobFn } from './tokenize.ts';

export interface OllamaServerOptions extends FaultOptions {
  /** The pulled model (default `llama3.2:3b`); any other is 404. */
  model?: string;
  /** The model's answer to a prompt (chat: the messages' contents joined by blank lines). Default "ok". */
  answer?: (prompt: string, body: Record<string, unknown>) => string;
  /** log P(token | context) of a token's text after the conversation's text. Default -1. */
  logprob?: LogprobFn;
  /** Whether the runner returns log-probabilities (default true). */
  logprobs?: boolean;
  /** How long the model takes to load on the first request (default 0: already loaded). */
  loadMs?: number;
  /** OLLAMA_MAX_QUEUE (default 512). */
  maxQueue?: number;
  /**
   * Another model family's tokenizer (default: the Llama-3 path above). Chat answers are then
   * generated as that family generates them (family-chat.ts: Mistral's " 4" is `▁` then `4`),
   * spelled as llama-server's pieces (" " and "4"); the template stays Llama 3's, which only
   * the prompt's token count reads. No thinking on this path.
   */
  tokenizer?: TokenizerName;
  /** A thinking model (qwen3, deepseek-r1): the thinking it emits before answering when Think is on. */
  thinking?: string;
  /** The release whose behaviour to reproduce where it differs (see the header): '0.12.3', '0.30.0'; default current. */
  version?: string;
}

export interface OllamaServer extends FakeServer {
  /** The server's root, e.g. http://127.0.0.1:41234 (what OLLAMA_HOST names). */
  url: string;
  /** Requests answered 503 server busy. */
  busy(): number;
}

/** Single-token candidates for the next token's alternatives (filtered to Llama-3 single tokens). */
const CANDIDATES = ['1', '2', '3', '4', '5', ' ', 'Il', 'La', '\n', 'Non', 'Ecco'];

/** Meta's Llama 3 chat template, as the model's Modelfile TEMPLATE renders it. */
function llama3Template(messages: { role: string; content: string }[]): string {
  const turns = messages.map((m) => `<|start_header_id|>${m.role}<|end_header_id|>\n\n${m.content}<|eot_id|>`).join('');
  return `${turns}<|start_header_id|>assistant<|end_header_id|>\n\n`;
}

export async function startOllamaServer(options: OllamaServerOptions = {}): Promise<OllamaServer> {
  const modelName = options.model ?? 'llama3.2:3b';
  const answer = options.answer ?? (() => 'ok');
  const logprob = options.logprob ?? flatLogprob;
  const maxQueue = options.maxQueue ?? 512;
  const singles = CANDIDATES.filter((c) => encodeText('llama3', c).length === 1);
  let loaded: Promise<void> | undefined = (options.loadMs ?? 0) > 0 ? undefined : Promise.resolve();
  let isLoaded = loaded !== undefined;
  let pending = 0;
  let busy = 0;

  // The row's error body (openai.go NewError: the type by status).
  const error = (status: number, _type: string, message: string) => ({ status, body: VENDORS.ollama.errorBody(status, '', message, {}) });

  /** sched.go getRunner: the loaded runner at once, else a slot in pendingReqCh or ErrMaxQueue. */
  async function schedule(): Promise<boolean> {
    if (isLoaded) return true;
    if (!loaded) {
      // The first request is taken off the channel by processPending and loads the model.
      loaded = new Promise((resolve) => setTimeout(resolve, options.loadMs)).then(() => {
        isLoaded = true;
      });
      await loaded;
      return true;
    }
    if (pending >= maxQueue) return false;
    pending += 1;
    await loaded;
    pending -= 1;
    return true;
  }

  function stops(raw: unknown): string[] {
    return Array.isArray(raw) ? raw.filter((s): s is string => typeof s === 'string') : typeof raw === 'string' ? [raw] : [];
  }

  /** The runner's generation: the answer's Llama-3 tokens, cut at a stop string and at num_predict. */
  function generate(prompt: string, body: Record<string, unknown>): { ids: number[]; text: string; finish: string } {
    let text = answer(prompt, body);
    let stopped = false;
    for (const stop of stops(body.stop)) {
      const at = stop === '' ? -1 : text.indexOf(stop);
      if (at >= 0) {
        text = text.slice(0, at);
        stopped = true;
      }
    }
    const all = encodeText('llama3', text);
    const limit = typeof body.max_tokens === 'number' && body.max_tokens >= 0 ? body.max_tokens : all.length;
    const ids = all.slice(0, limit);
    return { ids, text: decodeIds('llama3', ids), finish: ids.length < all.length && !stopped ? 'length' : 'stop' };
  }

  /** The prompt_eval_count of a prompt: all of it, or on 0.30.0 only what the slot had not cached. */
  let slot: number[] = [];
  function evaluated(ids: number[]): number {
    const previous = slot;
    slot = ids;
    if (options.version !== '0.30.0') return ids.length;
    let common = 0;
    while (common < ids.length && common < previous.length && ids[common] === previous[common]) common += 1;
    return ids.length - Math.min(common, ids.length - 1);
  }

  function usage(prompt: number, completion: number) {
    return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  }

  /** openai.go thinkFromReasoningEffort, then routes.go ChatHandler's default (Think on for a thinking model). */
  function thinks(body: Record<string, unknown>): boolean | string | { status: number; message: string } {
    const effort = body.reasoning_effort;
    if (options.version === '0.12.3' && effort !== undefined)
      return { status: 400, message: `think value ${JSON.stringify(String(effort))} is not supported for this model` };
    if (effort !== undefined && !['none', 'minimal', 'low', 'medium', 'high', 'max', 'xhigh', 'ultra'].includes(String(effort))) {
      return `invalid reasoning value: "${String(effort)}" (must be "minimal", "low", "medium", "high", "xhigh", "ultra", "max", or "none")`;
    }
    return options.thinking !== undefined && effort !== 'none';
  }

  function chat(body: Record<string, unknown>, k: number, n: number) {
    // Empty messages and top_logprobs outside 0–20 are the row's (openai-server.ts, `ollama`).
    const messages = body.messages as { role?: unknown; content?: unknown }[];
    const think = thinks(body);
    if (typeof think === 'string') return error(400, '', think);
    if (typeof think === 'object')
      return { ...error(400, '', think.message), body: { error: { message: think.message, type: 'api_error', param: null, code: null } } };
    const turns = messages.map((m) => ({ role: String(m.role ?? 'user'), content: String(m.content ?? '') }));
    const prompt = turns.map((m) => m.content).join('\n\n');
    if (options.tokenizer) return familyAnswer(options.tokenizer, turns, prompt, body, k, n);
    // Thinking first, within num_predict; the answer gets what is left.
    const thoughtIds = think ? encodeText('llama3', options.thinking ?? '') : [];
    const budget = typeof body.max_tokens === 'number' && body.max_tokens >= 0 ? body.max_tokens : Infinity;
    const thought = thoughtIds.slice(0, budget);
    const left = budget === Infinity ? undefined : budget - thought.length;
    const out = generate(prompt, left === undefined ? body : { ...body, max_tokens: left });
    if (thought.length < thoughtIds.length) out.finish = 'length';
    const context = `${prompt}\n\n`;
    const tokens = [...describeTokens('llama3', thought, 'decoded'), ...describeTokens('llama3', out.ids, 'decoded')];
    const wantLogprobs = body.logprobs === true && options.logprobs !== false;
    const logprobs = wantLogprobs
      ? {
          content: tokens.map((t, i) => {
            const before =
              context +
              tokens
                .slice(0, i)
                .map((x) => x.text)
                .join('');
            const entry = { token: t.reported, logprob: logprob(before, t.text) };
            if (k === 0) return entry;
            const top = singles
              .map((c) => ({ token: c, logprob: logprob(before, c) }))
              .sort((a, b) => b.logprob - a.logprob)
              .slice(0, k);
            return { ...entry, top_logprobs: top };
          }),
        }
      : undefined;
    return {
      status: 200,
      body: {
        id: `chatcmpl-${n}`,
        object: 'chat.completion',
        created: 1_767_225_600,
        model: modelName,
        system_fingerprint: 'fp_ollama',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: out.text, ...(thought.length > 0 ? { reasoning: decodeIds('llama3', thought) } : {}) },
            finish_reason: out.finish,
            ...(logprobs ? { logprobs } : {}),
          },
        ],
        usage: usage(evaluated(encodePrompt('llama3', llama3Template(turns))), thought.length + out.ids.length),
      },
    };
  }

  function familyAnswer(name: TokenizerName, turns: { role: string; content: string }[], prompt: string, body: Record<string, unknown>, k: number, n: number) {
    const max = typeof body.max_tokens === 'number' && body.max_tokens >= 0 ? body.max_tokens : 64;
    const family = familyChat(name, `${prompt}\n\n`, answer(prompt, body), max, k, logprob, 'text');
    const wantLogprobs = body.logprobs === true && options.logprobs !== false;
    return {
      status: 200,
      body: {
        id: `chatcmpl-${n}`,
        object: 'chat.completion',
        created: 1_767_225_600,
        model: modelName,
        system_fingerprint: 'fp_ollama',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: family.positions.map((p) => p.text).join('') },
            finish_reason: family.finish,
            ...(wantLogprobs
              ? {
                  logprobs: {
                    content: family.positions.map((p) => ({
                      token: p.token,
                      logprob: p.logprob,
                      ...(k > 0 ? { top_logprobs: p.top.map((t) => ({ token: t.token, logprob: t.logprob })) } : {}),
                    })),
                  },
                }
              : {}),
          },
        ],
        usage: usage(encodePrompt(name, llama3Template(turns)).length, family.ids.length),
      },
    };
  }

  function completion(body: Record<string, unknown>, n: number) {
    if (Array.isArray(body.stop)) {
      const bad = (body.stop as unknown[]).find((s) => typeof s !== 'string');
      // openai.go FromCompleteRequest, the Go type of the item (a JSON number decodes as float64).
      if (bad !== undefined) return error(400, '', `invalid type for 'stop' field: ${typeof bad === 'number' ? 'float64' : typeof bad}`);
    }
    const prompt = typeof body.prompt === 'string' ? body.prompt : '';
    // GenerateHandler without raw: the model sees the prompt as a templated user turn.
    const out = generate(llama3Template([{ role: 'user', content: prompt }]), body);
    return {
      status: 200,
      body: {
        id: `cmpl-${n}`,
        object: 'text_completion',
        created: 1_767_225_600,
        model: modelName,
        system_fingerprint: 'fp_ollama',
        choices: [{ text: out.text, index: 0, finish_reason: out.finish }],
        usage: usage(encodePrompt('llama3', llama3Template([{ role: 'user', content: prompt }])).length, out.ids.length),
      },
    };
  }

  // The wire (routes, the model check, errors, message validation) is the `ollama` row of the
  // one OpenAI-compatible fake; this file is the runner and scheduler behind it.
  const { faults, failFirst, fault, barrier, holdMs, rateLimit, capacity, refuseAfterMs } = options;
  const faultOptions: FaultOptions = { faults, failFirst, fault, barrier, holdMs, rateLimit, capacity, refuseAfterMs };
  const server = await startOpenAiServer({
    ...(Object.fromEntries(Object.entries(faultOptions).filter(([, v]) => v !== undefined)) as FaultOptions),
    flavour: 'ollama',
    model: modelName,
    engine: {
      // routes.go: GET /api/version answers {"version": …}.
      get: (path) => (path === '/api/version' ? { version: options.version ?? '0.32.7' } : undefined),
      admit: async () => {
        if (await schedule()) return undefined;
        busy += 1;
        return { status: 503, type: '', message: 'server busy, please try again.  maximum pending requests exceeded' };
      },
      chat,
      completion,
    },
  });
  // OLLAMA_HOST names the server's root; the row's routes are under /v1.
  return { ...server, url: server.url.replace(/\/v1$/, ''), busy: () => busy };
}
