/**
 * `sagemaker:<endpoint>#tgi|#openai`: InvokeEndpoint on a SageMaker real-time endpoint,
 * with Hugging Face TGI's payload (`#tgi`) or the OpenAI chat payload that vLLM and LMI
 * containers accept (`#openai`). Likert scoring, decided by `probeLikert` once per run:
 * TGI's `decoder_input_details` prefill (`tgi-prefill`), vLLM's `prompt_logprobs`
 * (`vllm-prompt-logprobs`), or chat next-token top log-probabilities; prompt details are
 * asked for only when scoring, never on a generation.
 *
 * A real-time endpoint must answer within 60 s: generations of more than 1024 new tokens go
 * through InvokeEndpointWithResponseStream, which only has to start within it; a shorter
 * one that still outlives it is reported as such (not retried — it would time out again).
 */
import type { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import type { ChoiceScores, GenerateRequest, Generation, GenerationParams, LikertProbe, Prompt, Provider, ScoreChoicesRequest } from '#core/models/index.ts';
import type { TokenUsage } from '#core/types.ts';
import { lazyClient, type LazyClient } from './aws-client-config.ts';
import { addUsage, CallPolicy } from './call-policy.ts';
import { adaptParams, capabilitiesOf, cutAtStops, type ModelCapabilities } from './capabilities.ts';
import { ProviderCallError, classifySdkError, deterministic } from './failures.ts';
import { parseJsonBody } from './http-json.ts';
import { combineChoiceScores, type ScoredChoice } from './choice-scores.ts';
import { choiceLogprob } from './logprobs.ts';
import { answerTokenScores, nextTokenDistrust, type GeneratedPosition } from './next-token.ts';
import type { ResolvedOptions } from './options.ts';
import {
  chatMessages,
  chatOnlyMessages,
  chatResponseSchema,
  expectShape,
  generatedPositions,
  generationFromChat,
  nextTokenPayload,
  promptLogprobTokens,
  samplingFields,
  usageOf,
} from './openai-wire.ts';
import { PROBE_QUESTION, PROBE_TEXT } from './openai.ts';
import { promptText, sampleSeed } from './prompt-text.ts';
import { invokeStream, readChatStream, readTgiStream, STREAM_ABOVE_TOKENS } from './sagemaker-stream.ts';
import { readTgi, tgiGeneratePayload, tgiPrefill, tgiScorePayload, tgiPositions, tgiTopTokensPayload } from './sagemaker-tgi.ts';
import { badSpec, networkKind } from './network-kind.ts';
import { estimateTokens } from './tokens.ts';

/** SageMaker's answer when the container outlives the real-time limit. */
const REALTIME_TIMEOUT = /timed out while waiting for a response|invocation timed out/i;

export class SageMakerProvider implements Provider {
  readonly kind = 'sagemaker';
  readonly concurrency: number;
  readonly #client: LazyClient<typeof import('@aws-sdk/client-sagemaker-runtime'), SageMakerRuntimeClient>;
  readonly #policy: CallPolicy;
  readonly #caps: ModelCapabilities;

  /** The model's name in records: the endpoint, or `<endpoint>/<component>` for an inference component. */
  readonly model: string;

  constructor(
    readonly id: string,
    readonly endpoint: string,
    readonly flavour: SageMakerFlavour,
    opts: ResolvedOptions,
    /** The inference component of the endpoint that serves the model (InvokeEndpoint `InferenceComponentName`). */
    readonly component?: string,
  ) {
    this.model = component === undefined ? endpoint : `${endpoint}/${component}`;
    this.concurrency = opts.concurrency;
    this.#client = lazyClient(
      () => import('@aws-sdk/client-sagemaker-runtime'),
      (sdk, config) => new sdk.SageMakerRuntimeClient(config),
      opts,
    );
    this.#caps = capabilitiesOf(opts.capabilities, 'sagemaker', this.model);
    this.#policy = new CallPolicy(opts, (err) => classifyInvoke(err, opts.now()));
  }

  adaptParams(params: GenerationParams, _style: Prompt['style']): { warnings: string[] } {
    return { warnings: adaptParams(this.#caps, params).warnings };
  }

  async generate(req: GenerateRequest): Promise<Generation> {
    const seed = sampleSeed(req.params.seed, req.sample);
    const adapted = adaptParams(this.#caps, req.params);
    const generation =
      adapted.params.maxTokens > STREAM_ABOVE_TOKENS
        ? await this.#generateStreamed(req, adapted.params, seed)
        : this.flavour === 'tgi'
          ? await this.#generateTgi(req, adapted.params, seed)
          : await this.#generateChat(req, adapted.params, seed);
    return adapted.clientStops.length > 0 ? { ...generation, text: cutAtStops(generation.text, adapted.clientStops) } : generation;
  }

  /** A long generation through InvokeEndpointWithResponseStream: it only has to start within 60 s. */
  async #generateStreamed(req: GenerateRequest, params: GenerationParams, seed: number | undefined): Promise<Generation> {
    const prompt = promptText(req.prompt);
    const messages = chatOnlyMessages(req.prompt);
    const payload =
      this.flavour === 'tgi'
        ? { ...(tgiGeneratePayload(prompt, params, seed) as Record<string, unknown>), stream: true }
        : { messages, ...samplingFields(params, seed), stream: true, stream_options: { include_usage: true } };
    const out = await this.#policy.call(async (signal) => {
      const { sdk, client } = await this.#client.get();
      const text = await invokeStream(sdk, client, this.#target(), payload, signal);
      return this.flavour === 'tgi' ? readTgiStream(text, prompt) : readChatStream(text, prompt);
    }, req.signal);
    return { ...out.value, usage: addUsage(out.value.usage, out.billed) as TokenUsage, latencyMs: out.latencyMs, attempts: out.attempts };
  }

  /** TGI takes raw text: a completion-style prompt verbatim, a chat prompt flattened. */
  async #generateTgi(req: GenerateRequest, params: GenerationParams, seed: number | undefined): Promise<Generation> {
    const inputs = promptText(req.prompt);
    const out = await this.#invoke(tgiGeneratePayload(inputs, params, seed), readTgi, req.signal);
    const g = out.value;
    const finishReason = g.details?.finish_reason;
    const usage = {
      promptTokens: g.details?.prefill?.length || estimateTokens(inputs),
      completionTokens: g.details?.generated_tokens ?? estimateTokens(g.generated_text),
    };
    return {
      text: g.generated_text,
      usage: addUsage(usage, out.billed) as TokenUsage,
      latencyMs: out.latencyMs,
      attempts: out.attempts,
      ...(finishReason ? { finishReason } : {}),
    };
  }

  /** The chat payload: a completion-style prompt goes in its chat form (the endpoint is chat-only). */
  async #generateChat(req: GenerateRequest, params: GenerationParams, seed: number | undefined): Promise<Generation> {
    const messages = chatOnlyMessages(req.prompt);
    const out = await this.#invoke({ messages, ...samplingFields(params, seed) }, (body) => expectShape(chatResponseSchema, body, 'chat answer'), req.signal);
    return generationFromChat(out, promptText(req.prompt));
  }

  /** log P(choice | prompt): one call per choice (prompt log-probabilities), or one next-token call. */
  async scoreChoices(req: ScoreChoicesRequest): Promise<ChoiceScores> {
    if (req.scoring?.mode === 'next-token') return this.#nextToken(req, req.scoring.topLogprobs ?? 5);
    const scored = await Promise.all(req.choices.map((choice) => this.#scoreOne(req, choice)));
    return combineChoiceScores(scored);
  }

  async #nextToken(req: ScoreChoicesRequest, k: number): Promise<ChoiceScores> {
    const context = promptText(req.prompt);
    if (this.flavour === 'tgi') {
      // Raw text: the choices' delimiter (" ") is appended, as the likelihood mode scores
      // `context + " 4"`; without it a SentencePiece model's next token is the bare `▁`.
      const inputs = context + choiceDelimiter(req.choices);
      const out = await this.#invoke(tgiTopTokensPayload(inputs, k), readTgi, req.signal);
      const usage = addUsage({ promptTokens: estimateTokens(inputs), completionTokens: out.value.details?.generated_tokens ?? 1 }, out.billed) as TokenUsage;
      const positions = tgiPositions(out.value);
      if (!positions) throw deterministic('the TGI answer has no details.top_tokens for the next token', usage);
      return this.#scores(positions, req.choices, usage, out);
    }
    const messages = chatOnlyMessages(req.prompt);
    const out = await this.#invoke(nextTokenPayload(messages, k), (b) => expectShape(chatResponseSchema, b, 'chat answer'), req.signal);
    const usage = addUsage(usageOf(out.value.usage, context, ''), out.billed) as TokenUsage;
    const positions = generatedPositions(out.value);
    if (!positions) throw deterministic('the endpoint sent no top_logprobs for the next token', usage);
    return this.#scores(positions, req.choices, usage, out);
  }

  #scores(positions: GeneratedPosition[], choices: readonly string[], usage: TokenUsage, out: { latencyMs: number; attempts: number }): ChoiceScores {
    const scores = answerTokenScores(positions, choices);
    return { logprobs: scores.logprobs, floored: scores.floored, floor: scores.floor, usage, latencyMs: out.latencyMs, attempts: out.attempts };
  }

  async #scoreOne(req: ScoreChoicesRequest, choice: string): Promise<ScoredChoice> {
    const context = promptText(req.prompt);
    if (this.flavour === 'tgi') {
      const out = await this.#invoke(
        tgiScorePayload(context + choice),
        (b) => {
          const g = readTgi(b);
          const usage = { promptTokens: g.details?.prefill?.length || estimateTokens(context + choice), completionTokens: g.details?.generated_tokens ?? 1 };
          const prefill = g.details?.prefill;
          if (!prefill || prefill.length === 0)
            throw deterministic(
              'the TGI answer has an empty details.prefill: TGI >= 3.0 returns prompt log-probabilities only when launched with --enable-prefill-logprobs',
              usage,
            );
          return { logprob: choiceLogprob(tgiPrefill(g), context, choice), usage };
        },
        req.signal,
      );
      return { logprob: out.value.logprob, usage: addUsage(out.value.usage, out.billed) as TokenUsage, latencyMs: out.latencyMs, attempts: out.attempts };
    }
    // The choice is the assistant's answer, continued rather than closed, so it ends the prompt.
    // Its delimiter stays out: the served template writes what precedes an answer (Qwen's
    // `<|im_start|>assistant\n`), so " 4" there would score `assistant\n 4`, a text the model
    // never produces; "4" is what it answers.
    const answer = choice.trimStart();
    const payload = {
      messages: [...chatMessages(req.prompt), { role: 'assistant', content: answer }],
      add_generation_prompt: false,
      continue_final_message: true,
      max_tokens: 1,
      temperature: 0,
      prompt_logprobs: 0,
    };
    const out = await this.#invoke(
      payload,
      (b) => {
        const reply = expectShape(chatResponseSchema, b, 'chat answer');
        const usage = usageOf(reply.usage, context + answer, '');
        if (!reply.prompt_logprobs)
          throw deterministic('the endpoint returned no prompt_logprobs (not vLLM?): use --likert-mode next-token or digit-parse', usage);
        return { logprob: choiceLogprob(promptLogprobTokens(reply), context, answer), usage };
      },
      req.signal,
    );
    return { logprob: out.value.logprob, usage: addUsage(out.value.usage, out.billed) as TokenUsage, latencyMs: out.latencyMs, attempts: out.attempts };
  }

  /** The capability check: prompt log-probabilities (prefill or prompt_logprobs), then next-token top log-probabilities. */
  async probeLikert(signal?: AbortSignal): Promise<LikertProbe> {
    const findings: string[] = [];
    const supported: LikertProbe['supported'] = [];
    let usage: TokenUsage = { promptTokens: 0, completionTokens: 0 };
    const probe: ScoreChoicesRequest = {
      taskId: 'probe',
      prompt: { messages: [{ role: 'user', content: PROBE_TEXT.slice(0, -2) }], style: 'chat' },
      choices: [PROBE_TEXT.slice(-2)],
    };
    const method = this.flavour === 'tgi' ? 'tgi-prefill' : 'vllm-prompt-logprobs';
    try {
      const s = await this.#scoreOne(probe, PROBE_TEXT.slice(-2));
      usage = addUsage(usage, s.usage) as TokenUsage;
      supported.push({ mode: 'likelihood', method });
    } catch (err) {
      usage = addUsage(usage, (err as ProviderCallError).billed) as TokenUsage;
      findings.push(`no prompt log-probabilities (${method}): ${(err as Error).message}`);
    }
    if (this.flavour === 'tgi') {
      try {
        const out = await this.#invoke(tgiTopTokensPayload(PROBE_TEXT.slice(0, -1), 5), readTgi, signal);
        usage = addUsage(usage, { promptTokens: estimateTokens(PROBE_TEXT), completionTokens: out.value.details?.generated_tokens ?? 1 }) as TokenUsage;
        const positions = tgiPositions(out.value);
        const untrusted = positions && nextTokenDistrust(positions);
        if (!positions) findings.push('no next-token log-probabilities: the TGI answer had no details.top_tokens');
        else if (untrusted) findings.push(`next-token log-probabilities cannot be trusted: ${untrusted}`);
        else supported.push({ mode: 'next-token', method: 'tgi-top-n-tokens', topLogprobs: 5 });
      } catch (err) {
        findings.push(`no next-token log-probabilities (top_n_tokens): ${(err as Error).message}`);
      }
    }
    if (this.flavour === 'openai') {
      try {
        const out = await this.#invoke(
          nextTokenPayload([{ role: 'user', content: PROBE_QUESTION }], 5),
          (b) => expectShape(chatResponseSchema, b, 'chat answer'),
          signal,
        );
        usage = addUsage(usage, usageOf(out.value.usage, PROBE_TEXT, '')) as TokenUsage;
        const positions = generatedPositions(out.value);
        const untrusted = positions && nextTokenDistrust(positions);
        if (!positions) findings.push('no next-token log-probabilities: the chat answer had no top_logprobs');
        else if (untrusted) findings.push(`next-token log-probabilities cannot be trusted: ${untrusted}`);
        else supported.push({ mode: 'next-token', method: 'chat-top-logprobs', topLogprobs: 5 });
      } catch (err) {
        findings.push(`no next-token log-probabilities: ${(err as Error).message}`);
      }
    }
    return { supported, findings, usage };
  }

  /** EndpointName, and InferenceComponentName when the spec names a component (the SDK sends it as the X-Amzn-SageMaker-Inference-Component header). */
  #target(): { endpoint: string; component?: string } {
    return { endpoint: this.endpoint, ...(this.component !== undefined ? { component: this.component } : {}) };
  }

  /** One InvokeEndpoint under the call policy; `read` validates the body inside the attempt, so a malformed body is retried. */
  #invoke<T>(payload: unknown, read: (body: unknown) => T, signal?: AbortSignal) {
    return this.#policy.call(async (attemptSignal) => {
      const { sdk, client } = await this.#client.get();
      const res = await client.send(
        new sdk.InvokeEndpointCommand({
          EndpointName: this.endpoint,
          ...(this.component !== undefined ? { InferenceComponentName: this.component } : {}),
          ContentType: 'application/json',
          Accept: 'application/json',
          Body: new TextEncoder().encode(JSON.stringify(payload)),
        }),
        { abortSignal: attemptSignal },
      );
      const text = res.Body ? new TextDecoder().decode(res.Body) : '';
      return read(parseJsonBody(text));
    }, signal);
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}

/** The whitespace every choice starts with (" " for " 1".." 5"): what separates the context from the answer. */
function choiceDelimiter(choices: readonly string[]): string {
  const leads = choices.map((c) => /^\s*/.exec(c)?.[0] ?? '');
  return leads.every((l) => l === leads[0]) ? (leads[0] ?? '') : '';
}

/** SDK errors, with the real-time 60 s limit named instead of retried. */
function classifyInvoke(err: unknown, now: number): ProviderCallError {
  const failure = classifySdkError(err, now);
  if (REALTIME_TIMEOUT.test(failure.message)) {
    return new ProviderCallError(
      `the endpoint did not answer within SageMaker's 60 s limit for real-time InvokeEndpoint (${failure.message}); lower --max-tokens or serve the model from an endpoint that answers faster`,
      { retryable: false, cause: err, ...(failure.status !== undefined ? { status: failure.status } : {}) },
    );
  }
  return failure;
}

/** The payload a SageMaker container speaks: TGI's `/generate` or an OpenAI-style (vLLM/LMI) chat. */
export type SageMakerFlavour = 'tgi' | 'openai';

export interface SageMakerSpec {
  scheme: 'sagemaker';
  endpoint: string;
  flavour: SageMakerFlavour;
  /** The endpoint's inference component serving the model (`sagemaker:<endpoint>/<component>`). */
  component?: string;
}

// SageMaker endpoint and inference-component names (CreateEndpoint EndpointName, CreateInferenceComponent
// InferenceComponentName): ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62} — no "/", so it separates the two unambiguously.
const ENDPOINT_NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;

/** `-m sagemaker:<endpoint>[/<component>][#tgi|#openai]` (default tgi): an endpoint of this account and Region. */
export const sagemaker = networkKind<SageMakerSpec>({
  scheme: 'sagemaker',
  usage: 'sagemaker:<endpoint>[/<component>]#tgi|#openai',
  description: 'SageMaker endpoint with a TGI or OpenAI-style (vLLM/LMI) container',
  billed: true,
  answersWithReference: false,
  options: ['region', 'endpoint-url'],
  iam: [
    {
      sid: 'InvokeSageMakerEndpoints',
      // InvokeEndpointWithResponseStream is authorized by sagemaker:InvokeEndpoint too (its API
      // reference); an invocation naming InferenceComponentName is checked against the
      // inference-component resource as well as the endpoint (Service Authorization Reference,
      // "Actions, resources, and condition keys for Amazon SageMaker AI": InvokeEndpoint takes
      // endpoint* and inference-component, arn:…:sagemaker:<region>:<account>:inference-component/<name>).
      actions: ['sagemaker:InvokeEndpoint'],
      resources: [
        { service: 'sagemaker', resource: 'endpoint/*', region: 'stack', account: true },
        { service: 'sagemaker', resource: 'inference-component/*', region: 'stack', account: true },
      ],
    },
  ],
  iamReason: 'invocation is limited to endpoints and inference components of this account and region',
  parse(spec, rest) {
    const hash = rest.indexOf('#');
    const [endpoint = '', component, ...extra] = (hash < 0 ? rest : rest.slice(0, hash)).split('/');
    const flavour = hash < 0 ? 'tgi' : rest.slice(hash + 1);
    if (!ENDPOINT_NAME.test(endpoint)) throw badSpec(spec, 'expected sagemaker:<endpoint-name>[/<component>][#tgi|#openai] with a valid endpoint name');
    if (extra.length > 0 || (component !== undefined && !ENDPOINT_NAME.test(component))) {
      throw badSpec(spec, 'expected sagemaker:<endpoint-name>/<inference-component-name> with a valid component name (letters, digits and "-")');
    }
    if (flavour !== 'tgi' && flavour !== 'openai') throw badSpec(spec, `unknown payload flavour "#${flavour}"; expected #tgi or #openai`);
    return { scheme: 'sagemaker', endpoint, flavour, ...(component !== undefined ? { component } : {}) };
  },
  open: (spec, parsed, options) => new SageMakerProvider(spec, parsed.endpoint, parsed.flavour, options, parsed.component),
});
