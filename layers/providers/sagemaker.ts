/**
 * `sagemaker:<endpoint>#tgi|#openai`: InvokeEndpoint on a SageMaker real-time endpoint,
 * with Hugging Face TGI's payload (`#tgi`) or the OpenAI chat payload that vLLM and LMI
 * containers accept (`#openai`). Both flavours score choices from prompt-token
 * log-probabilities: TGI's `decoder_input_details`, vLLM's `prompt_logprobs`.
 */
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import type { ChoiceScores, GenerateRequest, Generation, Provider, ScoreChoicesRequest } from '#core/models/provider.ts';
import { awsClientConfig } from './aws-client-config.ts';
import { CallPolicy } from './call-policy.ts';
import { classifySdkError } from './failures.ts';
import { parseJsonBody } from './http-json.ts';
import { charLength, sumTail } from './logprobs.ts';
import type { ResolvedOptions } from './options.ts';
import { chatMessages, chatResponseSchema, expectShape, generationFromChat, promptLogprobTokens, samplingFields } from './openai-wire.ts';
import { promptText, sampleSeed } from './prompt-text.ts';
import { readTgi, tgiGeneratePayload, tgiPrefill, tgiScorePayload } from './sagemaker-tgi.ts';
import type { SageMakerFlavour } from './spec.ts';
import { estimateTokens } from './tokens.ts';

export class SageMakerProvider implements Provider {
  readonly kind = 'sagemaker';
  readonly concurrency: number;
  readonly #client: SageMakerRuntimeClient;
  readonly #policy: CallPolicy;

  constructor(
    readonly id: string,
    readonly model: string,
    readonly flavour: SageMakerFlavour,
    opts: ResolvedOptions,
  ) {
    this.concurrency = opts.concurrency;
    this.#client = new SageMakerRuntimeClient(awsClientConfig(opts));
    this.#policy = new CallPolicy(opts, (err) => classifySdkError(err, opts.now()));
  }

  async generate(req: GenerateRequest): Promise<Generation> {
    const seed = sampleSeed(req.params.seed, req.sample);
    if (this.flavour === 'tgi') {
      const inputs = promptText(req.prompt);
      const out = await this.#invoke(tgiGeneratePayload(inputs, req.params, seed), readTgi, req.signal);
      const g = out.value;
      const finishReason = g.details?.finish_reason;
      return {
        text: g.generated_text,
        usage: {
          promptTokens: g.details?.prefill?.length || estimateTokens(inputs),
          completionTokens: g.details?.generated_tokens ?? estimateTokens(g.generated_text),
        },
        latencyMs: out.latencyMs,
        attempts: out.attempts,
        ...(finishReason ? { finishReason } : {}),
      };
    }
    const payload = { messages: chatMessages(req.prompt), ...samplingFields(req.params, seed) };
    const out = await this.#invoke(payload, (body) => expectShape(chatResponseSchema, body, 'chat answer'), req.signal);
    return generationFromChat(out, promptText(req.prompt));
  }

  /** log P(choice | prompt): one call per choice, summing the log-probabilities of the prompt's last tokens. */
  async scoreChoices(req: ScoreChoicesRequest): Promise<ChoiceScores> {
    const scored = await Promise.all(req.choices.map((choice) => this.#scoreOne(req, choice)));
    return {
      logprobs: scored.map((s) => s.logprob),
      usage: { promptTokens: scored.reduce((sum, s) => sum + s.promptTokens, 0), completionTokens: 0 },
      latencyMs: Math.max(0, ...scored.map((s) => s.latencyMs)),
    };
  }

  async #scoreOne(req: ScoreChoicesRequest, choice: string): Promise<{ logprob: number; promptTokens: number; latencyMs: number }> {
    if (this.flavour === 'tgi') {
      const out = await this.#invoke(tgiScorePayload(promptText(req.prompt) + choice), (b) => tgiPrefill(readTgi(b)), req.signal);
      return { logprob: sumTail(out.value, charLength(choice)), promptTokens: out.value.length, latencyMs: out.latencyMs };
    }
    // The choice is the assistant's answer, continued rather than closed, so it ends the prompt.
    const payload = {
      messages: [...chatMessages(req.prompt), { role: 'assistant', content: choice }],
      add_generation_prompt: false,
      continue_final_message: true,
      max_tokens: 1,
      temperature: 0,
      prompt_logprobs: 0,
    };
    const out = await this.#invoke(payload, (b) => promptLogprobTokens(expectShape(chatResponseSchema, b, 'chat answer')), req.signal);
    return { logprob: sumTail(out.value, charLength(choice)), promptTokens: out.value.length, latencyMs: out.latencyMs };
  }

  /** One InvokeEndpoint under the call policy; `read` validates the body inside the attempt, so a malformed body is retried. */
  #invoke<T>(payload: unknown, read: (body: unknown) => T, signal?: AbortSignal) {
    return this.#policy.call(async (attemptSignal) => {
      const res = await this.#client.send(
        new InvokeEndpointCommand({
          EndpointName: this.model,
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
