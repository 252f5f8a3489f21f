/**
 * `bedrock:<model-id>`: the Converse API. Model ids and cross-region inference-profile ids
 * (`us.anthropic.…`) pass through unchanged. Bedrock returns no log-probabilities, so this
 * provider has no `scoreChoices` and likert benchmarks fall back to parsing a digit.
 *
 * Every request is adapted to the model through the capabilities table first: Anthropic
 * models get no whitespace-only stop sequence (the answer is cut at it afterwards), Claude
 * 4.5-generation models and Opus 4.1 never get temperature and top_p together, Opus 4.7 and
 * later get neither, Titan Text only "|" or "User:" as a stop sequence, gpt-oss and Qwen3
 * none (the answer is cut at them afterwards), no model more than Converse's 2500. Converse is chat-only: a completion-style prompt goes in its
 * chat form (its messages), or as one user message when it has none.
 */
import type { BedrockRuntimeClient, ConverseResponse, Message } from '@aws-sdk/client-bedrock-runtime';
import type { GenerateRequest, Generation, GenerationParams, ParamsAdaptation, Prompt, Provider } from '#core/models/index.ts';
import type { TokenUsage } from '#core/types.ts';
import { lazyClient, type LazyClient } from './aws-client-config.ts';
import { addUsage, CallPolicy } from './call-policy.ts';
import { adaptParams, capabilitiesOf, cutAtStops, type ModelCapabilities } from './capabilities.ts';
import { ProviderCallError, classifySdkError, malformed } from './failures.ts';
import { promptText } from './prompt-text.ts';
import type { ResolvedOptions } from './options.ts';
import { badSpec, networkKind } from './network-kind.ts';
import type { ArnPattern } from '#core/models/index.ts';

export class BedrockProvider implements Provider {
  readonly kind = 'bedrock';
  readonly concurrency: number;
  readonly #client: LazyClient<typeof import('@aws-sdk/client-bedrock-runtime'), BedrockRuntimeClient>;
  readonly #policy: CallPolicy;
  readonly #caps: ModelCapabilities;

  constructor(
    readonly id: string,
    readonly model: string,
    opts: ResolvedOptions,
  ) {
    this.concurrency = opts.concurrency;
    this.#client = lazyClient(
      () => import('@aws-sdk/client-bedrock-runtime'),
      (sdk, config) => new sdk.BedrockRuntimeClient(config),
      opts,
    );
    this.#policy = new CallPolicy(opts, (err) => classifySdkError(err, opts.now()));
    this.#caps = capabilitiesOf(opts.capabilities, 'bedrock', model);
  }

  adaptParams(params: GenerationParams, style: Prompt['style']): ParamsAdaptation {
    const adapted = adaptParams(this.#caps, params);
    const warnings = adapted.warnings;
    if (style === 'completion') warnings.push('Bedrock Converse is chat-only: completion-style prompts are sent in their chat form');
    return { warnings, maxTokens: adapted.params.maxTokens };
  }

  async generate(req: GenerateRequest): Promise<Generation> {
    const { input, clientStops } = converseInput(this.#caps, req);
    const { sdk, client } = await this.#client.get();
    const command = new sdk.ConverseCommand({ modelId: this.model, ...input });
    const out = await this.#policy.call(async (signal) => readConverse(await client.send(command, { abortSignal: signal })), req.signal);
    const text = clientStops.length > 0 ? cutAtStops(out.value.text, clientStops) : out.value.text;
    return { ...out.value, text, usage: addUsage(out.value.usage, out.billed) as TokenUsage, latencyMs: out.latencyMs, attempts: out.attempts };
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }
}

/**
 * The Converse request of one generation after the model's rules (the same body an
 * on-demand call sends and a batch inference job's `modelInput` holds, without `modelId`),
 * and the stop sequences the answer is cut at afterwards because the model would refuse them.
 */
export function converseInput(
  caps: ModelCapabilities,
  req: Pick<GenerateRequest, 'prompt' | 'params'>,
): { input: { messages: Message[]; system?: { text: string }[]; inferenceConfig: Record<string, unknown> }; clientStops: string[] } {
  const { prompt } = req;
  const { params, clientStops, omitSampling } = adaptParams(caps, req.params);
  // Converse is chat-only: a completion prompt goes in its chat form, or as one user message without one.
  const completion = prompt.messages.length === 0;
  const messages: Message[] = completion
    ? [{ role: 'user', content: [{ text: promptText(prompt) }] }]
    : prompt.messages.map((m) => ({ role: m.role, content: [{ text: m.content }] }));
  const input = {
    messages,
    ...(prompt.system && !completion ? { system: [{ text: prompt.system }] } : {}),
    inferenceConfig: {
      maxTokens: params.maxTokens,
      // Neither is sent to a model that takes no sampling parameters (Claude Opus 4.7+);
      // top_p only when it restricts anything (and never beside temperature where the model refuses both).
      ...(omitSampling ? {} : { temperature: params.temperature }),
      ...(params.topP < 1 && !omitSampling ? { topP: params.topP } : {}),
      ...(params.stop.length > 0 ? { stopSequences: params.stop } : {}),
    },
  };
  return { input, clientStops };
}

/** The text, usage and stop reason of a Converse answer; an answer without a message is malformed. */
export function readConverse(res: ConverseResponse): Omit<Generation, 'latencyMs' | 'attempts'> {
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
  // A filtered answer is the model's (or its guardrail's) deterministic answer: billed, recorded, not retried.
  const filtered = res.stopReason === 'content_filtered' || res.stopReason === 'guardrail_intervened';
  return {
    text,
    usage: { promptTokens: res.usage.inputTokens, completionTokens: res.usage.outputTokens },
    ...(res.stopReason ? { finishReason: res.stopReason } : {}),
    ...(filtered ? { refusal: `the answer was filtered (stopReason ${res.stopReason})` } : {}),
  };
}

export interface BedrockSpec {
  scheme: 'bedrock';
  modelId: string;
}

/** Invoking a model through Converse / ConverseStream (authorised as these two actions). */
const INVOKE = ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'];
const arn = (resource: string, region: ArnPattern['region'], account: boolean): ArnPattern => ({ service: 'bedrock', resource, region, account });
/** Profile ARNs of this account in the stack's Region: system (cross-Region) and application. */
const PROFILES = [arn('inference-profile/*', 'stack', true), arn('application-inference-profile/*', 'stack', true)];

/**
 * `-m bedrock:<model-id>` (a foundation model or an inference profile). Bedrock's rules (user
 * guide, "Prerequisites for inference profiles" and "Geographic/Global cross-Region
 * inference"): invoking a cross-Region profile (`us.`, `eu.`, `apac.`, `global.`…) needs
 * InvokeModel on the profile in the source Region AND on the foundation model in every Region
 * the profile may route to — a `global.` profile also on the Region-less
 * `arn:…:bedrock:::foundation-model/<id>`. Application inference profiles are their own
 * resource type. Foundation models outside this Region are granted only through one of this
 * account's profiles in this Region (`bedrock:InferenceProfileArn`).
 */
export const bedrock = networkKind<BedrockSpec>({
  scheme: 'bedrock',
  usage: 'bedrock:<model-id>',
  description: 'Amazon Bedrock Converse API (no log-probabilities: ABRICOT runs in digit-parse mode)',
  billed: true,
  tablePriced: true,
  answersWithReference: false,
  options: ['region', 'endpoint-url'],
  iam: [
    // In this Region: on-demand models and the profiles themselves.
    { sid: 'InvokeModelsAndProfilesInRegion', actions: INVOKE, resources: [arn('foundation-model/*', 'stack', false), ...PROFILES] },
    // Where a profile routes: the model in every Region (and the global, Region-less model
    // ARN), and the system profile's copies there, only through one of our profiles.
    {
      sid: 'InvokeModelsWhereProfilesRoute',
      actions: INVOKE,
      resources: [arn('foundation-model/*', 'any', false), arn('foundation-model/*', 'none', false), arn('inference-profile/*', 'any', true)],
      arnLike: { key: 'bedrock:InferenceProfileArn', arns: PROFILES },
    },
    // First use of a third-party model in an account: Bedrock subscribes the account to the
    // model's AWS Marketplace offer in the background, with the caller's permissions ("Request
    // access to models", Bedrock user guide: the role needs aws-marketplace:Subscribe and
    // ViewSubscriptions; otherwise every call answers AccessDeniedException). Marketplace
    // actions take no resource; the documented scope is a list of product ids, which a model
    // chosen per run cannot name.
    { sid: 'SubscribeOnFirstUseOfAModel', actions: ['aws-marketplace:Subscribe', 'aws-marketplace:ViewSubscriptions'], resources: ['*'] },
  ],
  iamReason:
    'invocation is limited to foundation models and inference profiles of this account and region, and to foundation models in other Regions only through one of those inference profiles (cross-Region inference routes there); the AWS Marketplace subscription Bedrock makes on the first call to a third-party model takes no resource-level scope',
  parse(spec, modelId) {
    if (modelId === '' || /\s/.test(modelId)) throw badSpec(spec, 'expected bedrock:<model-id>, e.g. bedrock:anthropic.claude-3-haiku-20240307-v1:0');
    return { scheme: 'bedrock', modelId };
  },
  open: (spec, parsed, options) => new BedrockProvider(spec, parsed.modelId, options),
});
