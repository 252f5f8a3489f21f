/**
 * `openai:<base-url>#<model>`: any OpenAI-compatible server (vLLM, TGI, Ollama, llama.cpp,
 * OpenAI itself). Chat prompts go to `/chat/completions`, completion-style prompts to
 * `/completions` — or, on a chat-only server (404 on `/completions`, or a chat model in the
 * capabilities table), as one user message.
 *
 * Likert scoring, decided by `probeLikert` once per run: `openai-echo` (vLLM: the prompt
 * echoed with its log-probabilities, one call per choice) or `chat-top-logprobs` (one chat
 * call per item, the next token's top-k); servers with neither get digit-parse.
 */
import { InputError } from '#core/errors.ts';
import type {
  ChoiceScores,
  GenerateRequest,
  Generation,
  GenerationParams,
  LikertProbe,
  ParamsAdaptation,
  Prompt,
  Provider,
  ScoreChoicesRequest,
} from '#core/models/index.ts';
import type { TokenUsage } from '#core/types.ts';
import { addUsage, CallPolicy } from './call-policy.ts';
import { adaptParams, capabilitiesOf, cutAtStops, type ModelCapabilities } from './capabilities.ts';
import { ProviderCallError, classifySdkError, deterministic, isContentFiltered } from './failures.ts';
import { emptyForThinking, generationFields, RefusedFields, thinkingFields } from './openai-request.ts';
import { postJson } from './http-json.ts';
import { combineChoiceScores, type ScoredChoice } from './choice-scores.ts';
import { locateChoice, type LocatedChoice } from './logprobs.ts';
import { answerTokenScores, nextTokenDistrust } from './next-token.ts';
import { boundKey, type ResolvedOptions } from './options.ts';
import type { BoundKey } from './key-hosts.ts';
import { badSpec, httpBaseUrl, networkKind } from './network-kind.ts';
import {
  chatOnlyMessages,
  chatResponseSchema,
  generationFromChat,
  completionResponseSchema,
  echoedTokens,
  expectShape,
  generatedPositions,
  nextTokenPayload,
  usageOf,
} from './openai-wire.ts';
import { promptText, sampleSeed } from './prompt-text.ts';

/** The capability check's prompt: short, and ending in a digit like a likert choice. */
export const PROBE_TEXT = 'Da 1 a 5, quanto è astratta la parola "idea"? Risposta: 4';
/** The probe's question alone: what the chat probe asks, so the answer's first real token is a digit. */
export const PROBE_QUESTION = PROBE_TEXT.slice(0, -2);
/** How many next-token alternatives to ask for; servers that cap lower (TGI: 5) get 5. */
const TOP_LOGPROBS = [20, 5] as const;

/**
 * Where an OpenAI-compatible provider sends its calls and how it signs them: `openai:` posts
 * to `<base-url><path>` with a Bearer key; a server of its own (`azure:`) builds its URLs and
 * headers and names the scheme its capability rules are filed under.
 */
export interface OpenAiRoute {
  /** The provider kind (its registry scheme) and the capability table's provider key. */
  kind: string;
  url(path: '/completions' | '/chat/completions'): string;
  headers: Record<string, string>;
  /** The API key, bound to its hosts, and the header it travels in. */
  key?: RouteKey;
  /** The prompt tokens of an answer, where the server's own count needs correcting (Ollama's cache reuse). */
  promptTokens?(reported: number, prompt: string, signal?: AbortSignal): Promise<number>;
  /** How the vendor's request body differs from OpenAI's (declared in the provider's own file). */
  wire?: WireHooks;
}

/**
 * A vendor's request fields that differ from OpenAI's, as data: applied to every body the
 * provider sends (generation, likert, capability check), after the model's own rules, so a
 * vendor's renamed or extra field is a line in its provider file, not an edit of the wire code.
 */
export interface WireHooks {
  /** OpenAI's field name → the vendor's (Mistral: `seed` → `random_seed`). */
  rename?: Readonly<Record<string, string>>;
  /** Fields added to every body (a field the body already has keeps its value). */
  extra?: Readonly<Record<string, unknown>>;
}

/**
 * `body` as the vendor names it.
 * @example applyWireHooks({ seed: 7, max_tokens: 4 }, { rename: { seed: 'random_seed' }, extra: { safe_prompt: false } })
 * // → { random_seed: 7, max_tokens: 4, safe_prompt: false }
 */
export function applyWireHooks(body: Record<string, unknown>, hooks: WireHooks | undefined): Record<string, unknown> {
  if (!hooks) return body;
  const rename = hooks.rename ?? {};
  const renamed = Object.fromEntries(Object.entries(body).map(([k, v]) => [rename[k] ?? k, v]));
  return { ...hooks.extra, ...renamed };
}

/** A key a route attaches to each call whose host it may go to (key-hosts.ts). */
export interface RouteKey {
  bound: BoundKey;
  header(key: string): Record<string, string>;
}

const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

export class OpenAiProvider implements Provider {
  readonly kind: string;
  readonly concurrency: number;
  readonly #policy: CallPolicy;
  readonly #headers: Record<string, string>;
  readonly #key: RouteKey | undefined;
  readonly #url: (path: '/completions' | '/chat/completions') => string;
  readonly #caps: ModelCapabilities;
  /** vLLM accepts `max_tokens: 0` with echo; servers that do not get 1 from the first refusal on. */
  #scoreMaxTokens = 0;
  /** False once the server answered 404 on `/completions` (or the table says chat only). */
  #completions: boolean;
  /** Optional fields the server refused with a 400 (learned once, left out of every later call). */
  readonly refused = new RefusedFields();
  readonly #promptTokens: OpenAiRoute['promptTokens'];
  readonly #wire: WireHooks | undefined;

  constructor(
    readonly id: string,
    readonly baseUrl: string,
    readonly model: string,
    private readonly opts: ResolvedOptions,
    route?: OpenAiRoute,
  ) {
    this.kind = route?.kind ?? 'openai';
    this.concurrency = opts.concurrency;
    this.#policy = new CallPolicy(opts, (err) => classifySdkError(err, opts.now()));
    this.#caps = capabilitiesOf(opts.capabilities, this.kind, model);
    this.#completions = this.#caps.completion;
    this.#url = route ? (path) => route.url(path) : (path) => `${baseUrl}${path}`;
    this.#promptTokens = route?.promptTokens?.bind(route);
    this.#wire = route?.wire;
    if (route) {
      this.#headers = route.headers;
      this.#key = route.key;
    } else {
      const key = boundKey(opts, opts.apiKeyEnv, baseUrl);
      // A variable the user named (`--api-key-env`, even OPENAI_API_KEY itself) must hold the key;
      // without the flag a server that needs no key (a local vLLM) runs with none.
      if (key.value === undefined && (opts.apiKeyEnvNamed || opts.apiKeyEnv !== 'OPENAI_API_KEY')) {
        throw new InputError(`environment variable ${opts.apiKeyEnv} (named by --api-key-env) is not set`, { field: 'apiKeyEnv' });
      }
      this.#headers = {};
      this.#key = { bound: key, header: bearer };
    }
  }

  adaptParams(params: GenerationParams, style: Prompt['style']): ParamsAdaptation {
    const adapted = adaptParams(this.#caps, params, this.model);
    const warnings = adapted.warnings;
    if (style === 'completion' && !this.#caps.completion) warnings.push(`${this.model} is a chat model: completion-style prompts are sent in their chat form`);
    return { warnings, maxTokens: adapted.params.maxTokens };
  }

  async generate(req: GenerateRequest): Promise<Generation> {
    const started = this.opts.now();
    try {
      return await this.#generate(req);
    } catch (err) {
      // Azure's content filter refusing the prompt (400 content_filter) is the deployment's
      // answer to it: recorded as a refusal, as Bedrock's content_filtered is, never retried.
      if (!isContentFiltered(err)) throw err;
      return {
        text: '',
        usage: { promptTokens: 0, completionTokens: 0 },
        latencyMs: this.opts.now() - started,
        attempts: err.attempts ?? 1,
        refusal: `the prompt was filtered (${err.message})`,
      };
    }
  }

  async #generate(req: GenerateRequest): Promise<Generation> {
    const seed = sampleSeed(req.params.seed, req.sample);
    const prompt = promptText(req.prompt);
    let generation: Generation | undefined;
    let clientStops: string[] = [];
    if (req.prompt.style === 'completion' && this.#completions) {
      const planned = generationFields(this.#caps, req.params, seed, this.model, '/completions', this.refused);
      clientStops = planned.clientStops;
      generation = await this.#complete(prompt, planned.fields, req.signal);
    }
    if (!generation) {
      const planned = generationFields(this.#caps, req.params, seed, this.model, '/chat/completions', this.refused);
      clientStops = planned.clientStops;
      const out = await this.#chat({ messages: this.#messages(req.prompt), ...planned.fields }, req.signal);
      generation = generationFromChat(out, prompt);
      // Thinking that ate the whole limit is the run's budget, not the model's answer: an error, billed, never scored.
      const empty = emptyForThinking(out.value.choices[0], out.value.usage);
      if (empty) throw deterministic(empty, generation.usage);
    }
    if (this.#promptTokens) {
      const promptTokens = await this.#promptTokens(generation.usage.promptTokens, prompt, req.signal);
      generation = { ...generation, usage: { ...generation.usage, promptTokens } };
    }
    return clientStops.length > 0 ? { ...generation, text: cutAtStops(generation.text, clientStops) } : generation;
  }

  /** `/completions`; undefined (and chat from now on) when the server has no such endpoint. */
  async #complete(prompt: string, sampling: Record<string, unknown>, signal?: AbortSignal): Promise<Generation | undefined> {
    try {
      const out = await this.#policy.call(
        async (s) => expectShape(completionResponseSchema, await this.#post('/completions', { model: this.model, prompt, ...sampling }, s), 'completions'),
        signal,
      );
      const choice = out.value.choices[0];
      const text = choice?.text ?? '';
      return {
        text,
        usage: addUsage(usageOf(out.value.usage, prompt, text), out.billed) as TokenUsage,
        latencyMs: out.latencyMs,
        attempts: out.attempts,
        ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
      };
    } catch (err) {
      if (err instanceof ProviderCallError && err.status === 404) {
        this.#completions = false;
        return undefined;
      }
      throw err;
    }
  }

  /** Chat messages; a completion-style prompt on a chat-only server goes in its chat form. */
  #messages(prompt: Prompt): { role: string; content: string }[] {
    return chatOnlyMessages(prompt);
  }

  /**
   * A chat call with the model's thinking control; a 400 refusing an optional field (old
   * Ollama's `reasoning_effort`) is learned and the call sent again without it, once per run.
   */
  #chat(body: Record<string, unknown>, signal?: AbortSignal) {
    const full = { model: this.model, ...thinkingFields(this.#caps), ...body };
    return this.#policy.call(async (s) => {
      let sent = this.refused.strip(full);
      let answer: unknown;
      try {
        answer = await this.#post('/chat/completions', sent, s);
      } catch (err) {
        if (!this.refused.learn(err, sent)) throw err;
        sent = this.refused.strip(full);
        answer = await this.#post('/chat/completions', sent, s);
      }
      const value = expectShape(chatResponseSchema, answer, 'chat/completions');
      // finish_reason "error": the server failed while generating (Mistral's API lists it beside
      // stop, length, model_length and tool_calls: mistralai/client-python @05629d2 (v2.5.1)
      // docs/models/chatcompletionchoicefinishreason.md). What came back is no answer of the
      // model: retried, its tokens still counted, never scored.
      if (value.choices[0]?.finish_reason === 'error') {
        throw new ProviderCallError('the server stopped the answer with finish_reason "error" (a failure on its side, not the model\'s answer)', {
          retryable: true,
          billed: usageOf(value.usage, '', ''),
        });
      }
      return value;
    }, signal);
  }

  /** One call per choice (echo), or one call per item (next-token top log-probabilities). */
  async scoreChoices(req: ScoreChoicesRequest): Promise<ChoiceScores> {
    const started = this.opts.now();
    try {
      if (req.scoring?.mode === 'next-token') return await this.#nextToken(req, req.scoring.topLogprobs ?? TOP_LOGPROBS[1]);
      const context = promptText(req.prompt);
      const scored = await Promise.all(req.choices.map((choice) => this.#scoreOne(context, choice, req.signal)));
      return combineChoiceScores(scored);
    } catch (err) {
      // The content filter refusing the item's prompt is its answer in every likert mode, as in generate.
      if (!isContentFiltered(err)) throw err;
      return refusedScores(`the prompt was filtered (${err.message})`, { promptTokens: 0, completionTokens: 0 }, this.opts.now() - started, err.attempts ?? 1);
    }
  }

  async #nextToken(req: ScoreChoicesRequest, k: number): Promise<ChoiceScores> {
    const out = await this.#chat(nextTokenPayload(this.#messages(req.prompt), k), req.signal);
    const usage = addUsage(usageOf(out.value.usage, promptText(req.prompt), ''), out.billed) as TokenUsage;
    // Azure's output filter (finish_reason content_filter, content withheld): a refusal, billed, never scored.
    if (out.value.choices[0]?.finish_reason === 'content_filter') {
      return refusedScores('the answer was filtered (finish_reason "content_filter")', usage, out.latencyMs, out.attempts);
    }
    const positions = generatedPositions(out.value);
    if (!positions) throw deterministic('the server sent no top_logprobs for the next token', usage);
    const scores = answerTokenScores(positions, req.choices);
    return { logprobs: scores.logprobs, floored: scores.floored, floor: scores.floor, usage, latencyMs: out.latencyMs, attempts: out.attempts };
  }

  async #scoreOne(context: string, choice: string, signal?: AbortSignal): Promise<ScoredChoice & { located: LocatedChoice }> {
    const text = context + choice;
    const out = await this.#policy.call(async (s) => {
      const echoed = await this.#echo(text, s);
      const value = expectShape(completionResponseSchema, echoed.body, 'completions (echo)');
      const usage = usageOf(value.usage, text, '');
      const tokens = echoedTokens(value, { prompt: text, maxTokens: echoed.maxTokens });
      if (!tokens) throw deterministic('the server did not echo the prompt with log-probabilities (use --likert-mode next-token or digit-parse)', usage);
      return { located: locateChoice(tokens, context, choice), usage };
    }, signal);
    return {
      logprob: out.value.located.logprob,
      located: out.value.located,
      usage: addUsage(out.value.usage, out.billed) as TokenUsage,
      latencyMs: out.latencyMs,
      attempts: out.attempts,
    };
  }

  /** An echo of `prompt`; the `max_tokens` it was answered with (0, or 1 on servers that refuse 0). */
  async #echo(prompt: string, signal: AbortSignal): Promise<{ body: unknown; maxTokens: number }> {
    const body = { model: this.model, prompt, echo: true, logprobs: 1, temperature: 0 };
    const maxTokens = this.#scoreMaxTokens;
    try {
      return { body: await this.#post('/completions', { ...body, max_tokens: maxTokens }, signal), maxTokens };
    } catch (err) {
      // llama.cpp refuses echo with a 500 ("Only no echo is supported", tools/server/
      // server-common.cpp oaicompat_completion_params_parse): the same on every attempt.
      if (err instanceof ProviderCallError && err.status === 500 && /\becho\b/i.test(err.message)) {
        throw new ProviderCallError(`the server refuses echo: ${err.message}`, { retryable: false, status: 500 });
      }
      // Some servers insist on max_tokens ≥ 1; the generated token is told apart by the prompt's token count.
      // (A content filter's 400 is about the prompt, not max_tokens: it stands.)
      if (maxTokens === 0 && err instanceof ProviderCallError && err.status === 400 && !isContentFiltered(err)) {
        const retried = await this.#post('/completions', { ...body, max_tokens: 1 }, signal);
        this.#scoreMaxTokens = 1;
        return { body: retried, maxTokens: 1 };
      }
      throw err;
    }
  }

  /**
   * The capability check: an echo of a short prompt (prompt log-probabilities?), then, when
   * that fails, one chat token with top log-probabilities (next-token?).
   */
  async probeLikert(signal?: AbortSignal): Promise<LikertProbe> {
    const findings: string[] = [];
    let usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    const supported: LikertProbe['supported'] = [];
    const context = PROBE_TEXT.slice(0, -2);
    // The table says the model returns no log-probabilities (OpenAI and Azure reasoning models):
    // no call would find any, and each would be a 400.
    if (!this.#caps.logprobs) {
      findings.push(`no log-probabilities: ${this.model} returns none (capabilities table: logprobs false)`);
      return { supported, findings, usage };
    }
    if (this.#caps.noEcho !== undefined) findings.push(`no prompt log-probabilities: ${this.#caps.noEcho} (capabilities table)`);
    else if (this.#caps.completion) {
      try {
        const s = await this.#scoreOne(context, PROBE_TEXT.slice(-2), signal);
        usage = addUsage(usage, s.usage) as TokenUsage;
        const untrusted = distrust(s.located, PROBE_TEXT.slice(-1));
        if (untrusted) findings.push(`prompt log-probabilities cannot be trusted: ${untrusted}`);
        else supported.push({ mode: 'likelihood', method: 'openai-echo' });
      } catch (err) {
        usage = addUsage(usage, (err as ProviderCallError).billed) as TokenUsage;
        const status = err instanceof ProviderCallError ? err.status : undefined;
        findings.push(
          `no prompt log-probabilities: /completions with echo ${status === 404 ? 'answered 404 (chat-only server)' : `failed: ${(err as Error).message}`}`,
        );
        if (status === 404) this.#completions = false;
      }
    } else findings.push(`no prompt log-probabilities: ${this.model} is a chat model (capabilities table)`);
    for (const k of TOP_LOGPROBS) {
      try {
        const out = await this.#chat(nextTokenPayload([{ role: 'user', content: PROBE_QUESTION }], k), signal);
        usage = addUsage(usage, addUsage(usageOf(out.value.usage, PROBE_QUESTION, ''), out.billed)) as TokenUsage;
        const positions = generatedPositions(out.value);
        const untrusted = positions && nextTokenDistrust(positions);
        if (!positions) findings.push(`no next-token log-probabilities: ${this.refused.noteOf('logprobs') ?? 'the chat answer had no top_logprobs'}`);
        else if (untrusted) findings.push(`next-token log-probabilities cannot be trusted: ${untrusted}`);
        else supported.push({ mode: 'next-token', method: 'chat-top-logprobs', topLogprobs: k });
        break;
      } catch (err) {
        const status = err instanceof ProviderCallError ? err.status : undefined;
        if ((status === 400 || status === 422) && k !== TOP_LOGPROBS[TOP_LOGPROBS.length - 1]) continue;
        findings.push(`no next-token log-probabilities: ${(err as Error).message}`);
        break;
      }
    }
    return { supported, findings, usage };
  }

  /** Each call's key is checked against the call's own URL: only a host the key is for gets it. */
  #post(path: '/completions' | '/chat/completions', body: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const url = this.#url(path);
    const key = this.#key?.bound.for(url);
    return postJson(
      url,
      applyWireHooks(body, this.#wire),
      key === undefined ? this.#headers : { ...this.#headers, ...this.#key?.header(key) },
      signal,
      this.opts.now,
    );
  }
}

/** An item the content filter refused: no choice scores (so no prediction and no tie), the refusal as its reason. */
function refusedScores(refusal: string, usage: TokenUsage, latencyMs: number, attempts: number): ChoiceScores {
  return { logprobs: [], usage, latencyMs, attempts, refusal };
}

/**
 * Why choices located this way cannot be trusted, or undefined when they can: the echoed
 * tokens must spell the prompt's tail (not merely carry offsets) and the tokens summed must
 * include the choice's digit — otherwise every choice would get the same score.
 */
export function distrust(located: LocatedChoice, digit: string): string | undefined {
  if (located.by !== 'bytes')
    return `the echoed tokens do not spell the end of the prompt (the choice was found by text offsets only, in ${JSON.stringify(located.tokens)})`;
  if (!located.tokens.some((t) => t.includes(digit)))
    return `the tokens covering the choice (${JSON.stringify(located.tokens)}) do not include its digit ${digit}`;
  return undefined;
}

/** Whether an `openai:` spec calls OpenAI's own API (https://api.openai.com), whose models the shipped table prices. */
export function isOpenAiApi(spec: string): boolean {
  const rest = spec.replace(/^openai:/, '');
  const hash = rest.lastIndexOf('#');
  try {
    const url = new URL(hash < 0 ? rest : rest.slice(0, hash));
    return url.protocol === 'https:' && url.hostname.toLowerCase() === 'api.openai.com';
  } catch {
    return false;
  }
}

export interface OpenAiSpec {
  scheme: 'openai';
  baseUrl: string;
  model: string;
}

/** `-m openai:<base-url>#<model>`: any server of the user's; the deployed pipeline needs no permission for it. */
export const openai = networkKind<OpenAiSpec>({
  scheme: 'openai',
  usage: 'openai:<base-url>#<model>',
  description: 'any OpenAI-compatible server (vLLM, TGI, Ollama, llama.cpp)',
  billed: true,
  // Only OpenAI's own API bills OpenAI's prices: a vLLM, TGI or llama.cpp server serving a model
  // it calls `gpt-4o-mini` is the user's hardware, priced by --prices / --assume-price.
  tablePriced: isOpenAiApi,
  answersWithReference: false,
  options: ['api-key-env'],
  iam: [],
  parse(spec, rest) {
    const hash = rest.lastIndexOf('#');
    if (hash < 0) throw badSpec(spec, 'missing "#<model>"; expected openai:<base-url>#<model>, e.g. openai:http://127.0.0.1:8000/v1#my-model');
    const baseUrl = rest.slice(0, hash).replace(/\/+$/, '');
    const model = rest.slice(hash + 1);
    if (model === '') throw badSpec(spec, 'empty model name after "#"');
    return { scheme: 'openai', baseUrl: httpBaseUrl(spec, baseUrl), model };
  },
  open: (spec, parsed, options) => new OpenAiProvider(spec, parsed.baseUrl, parsed.model, options),
});
