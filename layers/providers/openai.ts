/**
 * `openai:<base-url>#<model>`: any OpenAI-compatible server (vLLM, TGI, Ollama, llama.cpp).
 * Chat prompts go to `/chat/completions`, completion-style prompts to `/completions`; choices
 * are scored through `/completions` with `echo: true, logprobs: 1` and no new tokens.
 */
import { InputError } from '#core/errors.ts';
import type { ChoiceScores, GenerateRequest, Generation, Provider, ScoreChoicesRequest } from '#core/models/provider.ts';
import { CallPolicy } from './call-policy.ts';
import { ProviderCallError, classifySdkError } from './failures.ts';
import { postJson } from './http-json.ts';
import { sumCovering, withCumulativeOffsets, charLength } from './logprobs.ts';
import type { ResolvedOptions } from './options.ts';
import {
  chatMessages,
  chatResponseSchema,
  generationFromChat,
  completionResponseSchema,
  echoedTokens,
  expectShape,
  samplingFields,
  usageOf,
} from './openai-wire.ts';
import { promptText, sampleSeed } from './prompt-text.ts';

export class OpenAiProvider implements Provider {
  readonly kind = 'openai';
  readonly concurrency: number;
  readonly #policy: CallPolicy;
  readonly #headers: Record<string, string>;
  /** vLLM accepts `max_tokens: 0` with echo; servers that do not get 1 from the first refusal on. */
  #scoreMaxTokens = 0;

  constructor(
    readonly id: string,
    readonly baseUrl: string,
    readonly model: string,
    private readonly opts: ResolvedOptions,
  ) {
    this.concurrency = opts.concurrency;
    this.#policy = new CallPolicy(opts, (err) => classifySdkError(err, opts.now()));
    const key = opts.env[opts.apiKeyEnv];
    if (key === undefined && opts.apiKeyEnv !== 'OPENAI_API_KEY') {
      throw new InputError(`environment variable ${opts.apiKeyEnv} (named by --api-key-env) is not set`, { field: 'apiKeyEnv' });
    }
    this.#headers = key ? { authorization: `Bearer ${key}` } : {};
  }

  async generate(req: GenerateRequest): Promise<Generation> {
    const seed = sampleSeed(req.params.seed, req.sample);
    const sampling = samplingFields(req.params, seed);
    if (req.prompt.style === 'completion') {
      const prompt = promptText(req.prompt);
      const out = await this.#policy.call(async (signal) => {
        const body = await this.#post('/completions', { model: this.model, prompt, ...sampling }, signal);
        return expectShape(completionResponseSchema, body, 'completions');
      }, req.signal);
      const choice = out.value.choices[0];
      const text = choice?.text ?? '';
      return {
        text,
        usage: usageOf(out.value.usage, prompt, text),
        latencyMs: out.latencyMs,
        attempts: out.attempts,
        ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
      };
    }
    const messages = chatMessages(req.prompt);
    const out = await this.#policy.call(async (signal) => {
      const body = await this.#post('/chat/completions', { model: this.model, messages, ...sampling }, signal);
      return expectShape(chatResponseSchema, body, 'chat/completions');
    }, req.signal);
    return generationFromChat(out, promptText(req.prompt));
  }

  /** log P(choice | prompt) per choice, one echo call per choice (llama.cpp and others reject prompt arrays). */
  async scoreChoices(req: ScoreChoicesRequest): Promise<ChoiceScores> {
    const context = promptText(req.prompt);
    const scored = await Promise.all(req.choices.map((choice) => this.#scoreOne(context, choice, req.signal)));
    return {
      logprobs: scored.map((s) => s.logprob),
      usage: { promptTokens: scored.reduce((sum, s) => sum + s.promptTokens, 0), completionTokens: 0 },
      latencyMs: Math.max(0, ...scored.map((s) => s.latencyMs)),
    };
  }

  async #scoreOne(context: string, choice: string, signal?: AbortSignal): Promise<{ logprob: number; promptTokens: number; latencyMs: number }> {
    const text = context + choice;
    const out = await this.#policy.call(async (attemptSignal) => {
      const body = await this.#echo(text, attemptSignal);
      return expectShape(completionResponseSchema, body, 'completions (echo)');
    }, signal);
    const reported = echoedTokens(out.value);
    const tokens = reported.every((t) => t.offset !== undefined) ? reported : withCumulativeOffsets(reported);
    const start = charLength(context);
    return {
      logprob: sumCovering(tokens, start, start + charLength(choice)),
      promptTokens: out.value.usage?.prompt_tokens ?? reported.length,
      latencyMs: out.latencyMs,
    };
  }

  async #echo(prompt: string, signal: AbortSignal): Promise<unknown> {
    const body = { model: this.model, prompt, echo: true, logprobs: 1, temperature: 0 };
    try {
      return await this.#post('/completions', { ...body, max_tokens: this.#scoreMaxTokens }, signal);
    } catch (err) {
      // Some servers insist on max_tokens ≥ 1; the extra generated token lies past the choice and is ignored.
      if (this.#scoreMaxTokens === 0 && err instanceof ProviderCallError && err.status === 400) {
        const retried = await this.#post('/completions', { ...body, max_tokens: 1 }, signal);
        this.#scoreMaxTokens = 1;
        return retried;
      }
      throw err;
    }
  }

  #post(path: string, body: unknown, signal: AbortSignal): Promise<unknown> {
    return postJson(`${this.baseUrl}${path}`, body, this.#headers, signal, this.opts.now);
  }
}
