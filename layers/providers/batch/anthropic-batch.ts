/**
 * Anthropic Message Batches (`POST /v1/messages/batches`, `GET …/{id}`, `POST …/{id}/cancel`,
 * `GET <results_url>`) behind `anthropic:<model>` with `--batch`. Each request's `params` is
 * the body an on-demand `anthropic:` call would send (anthropic.ts `messagesRequest`: the
 * model's sampling and stop-sequence rules), and a result is read as that call's answer is.
 *
 * What it follows (Anthropic API reference "Message Batches" and the batch-processing guide,
 * platform.claude.com/docs, read 2026-12; the same shapes in @anthropic-ai/sdk 0.71
 * resources/messages/batches.d.ts): a batch holds up to 100,000 requests and 256 MB; each
 * request is `{custom_id, params}` with `params` a Messages API body (`max_tokens` ≥ 1);
 * `processing_status` is in_progress → (canceling →) ended, with `request_counts` of
 * processing, succeeded, errored, canceled and expired requests; a batch ends within 24 hours
 * (requests not done by then are `expired`); results, one JSON line per request in any
 * order, are read from `results_url` once the batch ended, each `result.type` one of
 * succeeded (`message`), errored (`error`), canceled, expired. A batch carries no metadata
 * to search by, so there is no `find`: a process killed between the create call and storing
 * its answer (a few milliseconds) creates a second batch on resume.
 */
import { z } from 'zod';
import { InputError } from '#core/errors.ts';
import type { BatchClient, BatchJobStatus, BatchRecord, BatchResult } from '#core/models/index.ts';
import type { Generation, GenerationParams } from '#core/models/index.ts';
// The provider registry first: anthropic.ts → capabilities.ts → registry.ts is a cycle that only
// resolves when the registry starts it (as in batch/registry.ts).
import '../registry.ts';
import { ANTHROPIC_VERSION, anthropicMessageSchema, generationOfMessage, messagesRequest } from '../anthropic.ts';
import { CallPolicy } from '../call-policy.ts';
import { adaptParams, capabilitiesOf, cutAtStops, type ModelCapabilities } from '../capabilities.ts';
import { classifySdkError } from '../failures.ts';
import { fetchJson } from '../http-json.ts';
import { boundKey, type ResolvedOptions } from '../options.ts';
import type { BoundKey } from '../key-hosts.ts';

const countsSchema = z.object({ processing: z.number(), succeeded: z.number(), errored: z.number(), canceled: z.number(), expired: z.number() });
const batchSchema = z
  .object({
    id: z.string(),
    processing_status: z.enum(['in_progress', 'canceling', 'ended']),
    request_counts: countsSchema,
    expires_at: z.string().nullish(),
    cancel_initiated_at: z.string().nullish(),
    results_url: z.string().nullish(),
  })
  .loose();
type MessageBatch = z.infer<typeof batchSchema>;

const resultLineSchema = z
  .object({
    custom_id: z.string(),
    result: z.discriminatedUnion('type', [
      z.object({ type: z.literal('succeeded'), message: anthropicMessageSchema }).loose(),
      z
        .object({ type: z.literal('errored'), error: z.object({ error: z.object({ type: z.string(), message: z.string() }).loose().optional() }).loose() })
        .loose(),
      z.object({ type: z.literal('canceled') }).loose(),
      z.object({ type: z.literal('expired') }).loose(),
    ]),
  })
  .loose();

export class AnthropicBatchClient implements BatchClient {
  readonly kind = 'anthropic-message-batches';
  /** "Batches may contain up to 100,000 requests and be up to 256 MB in total size." */
  readonly limits = { maxRecords: 100_000, maxBytes: 256 * 1024 * 1024, minRecords: 1 };
  readonly #policy: CallPolicy;
  readonly #key: BoundKey;
  readonly #caps: ModelCapabilities;

  constructor(
    readonly baseUrl: string,
    readonly model: string,
    private readonly opts: ResolvedOptions,
    apiKeyEnv: string,
    /** The provider scheme whose capability rules apply (the registry passes the anthropic kind's). */
    scheme: string,
  ) {
    this.#policy = new CallPolicy(opts, (err) => classifySdkError(err, opts.now()));
    this.#caps = capabilitiesOf(opts.capabilities, scheme, model);
    this.#key = boundKey(opts, apiKeyEnv, baseUrl);
    if (!this.#key.value)
      throw new InputError(`environment variable ${apiKeyEnv} is not set (${scheme}: reads its API key from it; name another with --api-key-env)`, {
        field: 'apiKeyEnv',
      });
  }

  /** One request: `custom_id` (letters, digits, `_-`, ≤ 64) and the Messages API body an on-demand call would send. */
  encode(record: BatchRecord): string {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(record.recordId)) throw new Error(`custom_id ${JSON.stringify(record.recordId)} is not 1-64 letters, digits, _ or -`);
    return JSON.stringify({ custom_id: record.recordId, params: messagesRequest(this.#caps, this.model, record.request).body });
  }

  /** The answer cut at the stop sequences the model refuses (not sent), as the on-demand call cuts it. */
  finish(generation: Generation, params: GenerationParams): Generation {
    const { clientStops } = adaptParams(this.#caps, params);
    return clientStops.length > 0 ? { ...generation, text: cutAtStops(generation.text, clientStops) } : generation;
  }

  async submit(lines: readonly string[]): Promise<string> {
    const requests = lines.map((l) => JSON.parse(l) as unknown);
    return batchSchema.parse(await this.#call('POST', `${this.baseUrl}/v1/messages/batches`, JSON.stringify({ requests }))).id;
  }

  async status(jobId: string): Promise<BatchJobStatus> {
    return statusOf(await this.#batch(jobId));
  }

  async results(jobId: string): Promise<BatchResult[]> {
    const batch = await this.#batch(jobId);
    if (batch.processing_status !== 'ended' || !batch.results_url) return [];
    const text = (await this.#call('GET', batch.results_url, undefined, 'text')) as string;
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => resultOf(resultLineSchema.parse(JSON.parse(l))));
  }

  async cancel(jobId: string): Promise<void> {
    await this.#call('POST', `${this.baseUrl}/v1/messages/batches/${encodeURIComponent(jobId)}/cancel`);
  }

  async #batch(jobId: string): Promise<MessageBatch> {
    return batchSchema.parse(await this.#call('GET', `${this.baseUrl}/v1/messages/batches/${encodeURIComponent(jobId)}`));
  }

  async #call(method: 'GET' | 'POST', url: string, body?: string, read: 'json' | 'text' = 'json'): Promise<unknown> {
    // Checked per URL: a results_url the API names elsewhere never gets the key.
    const headers = { 'x-api-key': this.#key.for(url) ?? '', 'anthropic-version': ANTHROPIC_VERSION };
    const out = await this.#policy.call((signal) =>
      fetchJson(url, { method, headers, ...(body !== undefined ? { body } : {}), signal, now: () => this.opts.now(), read }),
    );
    return out.value;
  }
}

/** A Message Batch as a job status: ended by cancel, by the 24-hour window, or complete. */
function statusOf(batch: MessageBatch): BatchJobStatus {
  const c = batch.request_counts;
  const counts = { total: c.processing + c.succeeded + c.errored + c.canceled + c.expired, succeeded: c.succeeded, failed: c.errored + c.canceled + c.expired };
  const base = { providerStatus: batch.processing_status, counts, ...(batch.expires_at ? { expiresAt: batch.expires_at } : {}) };
  switch (batch.processing_status) {
    case 'in_progress':
      return { ...base, phase: 'running' };
    case 'canceling':
      return { ...base, phase: 'cancelling' };
    case 'ended':
      if (batch.cancel_initiated_at) return { ...base, phase: 'ended', ending: 'cancelled', reason: 'the batch was cancelled' };
      if (c.expired > 0)
        return { ...base, phase: 'ended', ending: 'expired', reason: `${c.expired} request(s) expired: the batch did not finish within 24 hours` };
      return { ...base, phase: 'ended', ending: 'completed' };
    default: {
      const never: never = batch.processing_status;
      throw new Error(`unknown processing_status ${String(never)}`);
    }
  }
}

function resultOf(line: z.infer<typeof resultLineSchema>): BatchResult {
  const { result } = line;
  switch (result.type) {
    case 'succeeded':
      return { recordId: line.custom_id, ok: true, generation: generationOfMessage(result.message, [], { latencyMs: 0, attempts: 1 }) };
    case 'errored':
      return {
        recordId: line.custom_id,
        ok: false,
        error: `errored: ${result.error.error ? `${result.error.error.type}: ${result.error.error.message}` : 'no error detail'}`,
      };
    case 'canceled':
      return { recordId: line.custom_id, ok: false, error: 'canceled: the batch was cancelled before this request ran' };
    case 'expired':
      return { recordId: line.custom_id, ok: false, error: 'expired: the batch reached its 24-hour limit before this request ran' };
    default: {
      const never: never = result;
      throw new Error(`unknown result type ${JSON.stringify(never)}`);
    }
  }
}
