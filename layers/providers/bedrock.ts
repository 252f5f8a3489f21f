/**
 * `bedrock:<model-id>`: the Converse API. Model ids and cross-region inference-profile ids
 * (`us.anthropic.…`) pass through unchanged. Bedrock returns no log-probabilities, so this
 * provider has no `scoreChoices` and likert benchmarks fall back to parsing a digit.
 */
import { BedrockRuntimeClient, ConverseCommand, type ConverseResponse, type Message } from '@aws-sdk/client-bedrock-runtime';
import type { GenerateRequest, Generation, Provider } from '#core/models/provider.ts';
import { awsClientConfig } from './aws-client-config.ts';
import { CallPolicy } from './call-policy.ts';
import { ProviderCallError, classifySdkError, malformed } from './failures.ts';
import type { ResolvedOptions } from './options.ts';

export class BedrockProvider implements Provider {
  readonly kind = 'bedrock';
  readonly concurrency: number;
  readonly #client: BedrockRuntimeClient;
  readonly #policy: CallPolicy;

  constructor(
    readonly id: string,
    readonly model: string,
    opts: ResolvedOptions,
  ) {
    this.concurrency = opts.concurrency;
    this.#client = new BedrockRuntimeClient(awsClientConfig(opts));
    this.#policy = new CallPolicy(opts, (err) => classifySdkError(err, opts.now()));
  }

  async generate(req: GenerateRequest): Promise<Generation> {
    const { params, prompt } = req;
    const messages: Message[] = prompt.messages.map((m) => ({ role: m.role, content: [{ text: m.content }] }));
    const command = new ConverseCommand({
      modelId: this.model,
      messages,
      ...(prompt.system ? { system: [{ text: prompt.system }] } : {}),
      inferenceConfig: {
        maxTokens: params.maxTokens,
        temperature: params.temperature,
        // Sent only when it restricts anything: newer Anthropic models refuse temperature and topP together.
        ...(params.topP < 1 ? { topP: params.topP } : {}),
        ...(params.stop.length > 0 ? { stopSequences: params.stop } : {}),
      },
    });
    const out = await this.#policy.call(
      async (signal) => readConverse(await this.#client.send(command, { abortSignal: signal })),
      req.signal,
    );
    return { ...out.value, latencyMs: out.latencyMs, attempts: out.attempts };
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}

/** The text, usage and stop reason of a Converse answer; an answer without a message is malformed. */
function readConverse(res: ConverseResponse): Omit<Generation, 'latencyMs' | 'attempts'> {
  const content = res.output && 'message' in res.output ? res.output.message?.content : undefined;
  if (!Array.isArray(content)) {
    throw res.output === undefined && res.usage === undefined
      ? new ProviderCallError('empty response body', { retryable: true })
      : malformed('Converse answer has no output.message.content');
  }
  const text = content.map((block) => ('text' in block && typeof block.text === 'string' ? block.text : '')).join('');
  if (!res.usage || typeof res.usage.inputTokens !== 'number' || typeof res.usage.outputTokens !== 'number') {
    throw malformed('Converse answer has no usage');
  }
  return {
    text,
    usage: { promptTokens: res.usage.inputTokens, completionTokens: res.usage.outputTokens },
    ...(res.stopReason ? { finishReason: res.stopReason } : {}),
  };
}
