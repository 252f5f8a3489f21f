/**
 * The OpenAI Batch API behind `openai:<base-url>#<model>` with `--batch`: the records are
 * uploaded as one JSONL file (`POST /files`, `purpose=batch`), a batch is created over it
 * (`POST /batches`, `completion_window: "24h"`, tagged with `metadata.polyeval_job` so a
 * killed run finds it with `GET /batches`), polled (`GET /batches/{id}`) and read back from
 * its output and error files (`GET /files/{id}/content`) by `custom_id`.
 *
 * What it follows (OpenAI API reference, "Batch" and "Files", read 2026-12): a batch's
 * status is validating → in_progress → finalizing → completed, or failed (the input did
 * not validate: `errors.data`), expired (the 24-hour window passed: finished requests are
 * in the output file, the others in the error file with code `batch_expired`), or
 * cancelling → cancelled (the same, with `batch_cancelled`); a file holds at most 50,000
 * requests and 200 MB; every line of a batch targets the batch's one endpoint.
 */
import { InputError } from '#core/errors.ts';
import type { BatchClient, BatchJobStatus, BatchRecord, BatchResult } from '#core/models/index.ts';
import type { Generation, GenerationParams } from '#core/models/index.ts';
import { z } from 'zod';
import { CallPolicy } from '../call-policy.ts';
import { adaptParams, capabilitiesOf, cutAtStops, type ModelCapabilities } from '../capabilities.ts';
import { classifySdkError, ProviderCallError } from '../failures.ts';
import { fetchJson, serverMessage } from '../http-json.ts';
import { chatOnlyMessages, chatResponseSchema, completionResponseSchema, generationFromChat, usageOf } from '../openai-wire.ts';
import { emptyForThinking, generationFields, RefusedFields } from '../openai-request.ts';
import { boundKey, type ResolvedOptions } from '../options.ts';
import type { BoundKey } from '../key-hosts.ts';
import { promptText, sampleSeed } from '../prompt-text.ts';
import { estimateTokens } from '../tokens.ts';
import enqueuedLimits from './openai-batch-limits.json' with { type: 'json' };

const batchSchema = z
  .object({
    id: z.string(),
    status: z.enum(['validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled']),
    output_file_id: z.string().nullish(),
    error_file_id: z.string().nullish(),
    expires_at: z.number().nullish(),
    request_counts: z.object({ total: z.number(), completed: z.number(), failed: z.number() }).nullish(),
    errors: z
      .object({ data: z.array(z.object({ code: z.string().nullish(), message: z.string().nullish(), line: z.number().nullish() }).loose()).nullish() })
      .loose()
      .nullish(),
    metadata: z.record(z.string(), z.string()).nullish(),
  })
  .loose();
type Batch = z.infer<typeof batchSchema>;

const outputLineSchema = z
  .object({
    custom_id: z.string(),
    response: z.object({ status_code: z.number(), body: z.unknown() }).loose().nullish(),
    error: z.object({ code: z.string().nullish(), message: z.string().nullish() }).loose().nullish(),
  })
  .loose();

const fileSchema = z.object({ id: z.string() }).loose();

/** What a server without the Batch API gets told (exit 2). */
export const NO_BATCH_API = 'this server does not offer the OpenAI Batch API; run without --batch';
const listSchema = z.object({ data: z.array(batchSchema) }).loose();

/**
 * The model's enqueued-token limit: `--batch-token-limit`, else the shipped table's (tier 1,
 * openai-batch-limits.json), else none.
 */
export function enqueuedTokenLimit(model: string, override: number | undefined): number | undefined {
  if (override !== undefined) return override;
  return enqueuedLimits.models.find((m) => new RegExp(m.model).test(model))?.enqueued_tokens;
}

export class OpenAiBatchClient implements BatchClient {
  readonly kind = 'openai-batch';
  /**
   * OpenAI API reference, Batch › Create batch: "up to 50,000 requests, and can be up to 200 MB
   * in size"; and the model's batch queue limit on enqueued input tokens.
   */
  readonly limits: { maxRecords: number; maxBytes: number; minRecords: number; maxEnqueuedTokens?: number };
  readonly #policy: CallPolicy;
  readonly #key: BoundKey;
  readonly #caps: ModelCapabilities;
  /** The API's path prefix (`/v1`): a batch line's `url` and the batch's `endpoint` are absolute paths. */
  readonly #path: string;
  /** Optional fields the server refused (learned from a result's 400): left out of every later line. */
  readonly refused = new RefusedFields();

  constructor(
    readonly baseUrl: string,
    readonly model: string,
    private readonly opts: ResolvedOptions,
    /** The provider scheme whose capability rules apply (the registry passes the openai kind's). */
    scheme: string,
  ) {
    this.#policy = new CallPolicy(opts, (err) => classifySdkError(err, opts.now()));
    this.#caps = capabilitiesOf(opts.capabilities, scheme, model);
    const tokens = enqueuedTokenLimit(model, opts.batchTokenLimit);
    this.limits = { maxRecords: 50_000, maxBytes: 200 * 1024 * 1024, minRecords: 1, ...(tokens !== undefined ? { maxEnqueuedTokens: tokens } : {}) };
    this.#path = new URL(baseUrl).pathname.replace(/\/+$/, '');
    this.#key = boundKey(opts, opts.apiKeyEnv, baseUrl);
    if (this.#key.value === undefined && opts.apiKeyEnv !== 'OPENAI_API_KEY')
      throw new InputError(`environment variable ${opts.apiKeyEnv} (named by --api-key-env) is not set`, { field: 'apiKeyEnv' });
  }

  /**
   * One request line: the body an on-demand call of `openai:` would POST, to the same endpoint,
   * built by the same function (openai-request.ts `generationFields`): a reasoning model's
   * line has `max_completion_tokens`, its lowest `reasoning_effort` and no sampling fields.
   */
  encode(record: BatchRecord): string {
    const { request } = record;
    const completion = request.prompt.style === 'completion' && this.#caps.completion;
    const endpoint = completion ? '/completions' : '/chat/completions';
    const { fields } = generationFields(this.#caps, request.params, sampleSeed(request.params.seed, request.sample), this.model, endpoint, this.refused);
    const body = completion
      ? { model: this.model, prompt: promptText(request.prompt), ...fields }
      : { model: this.model, messages: chatOnlyMessages(request.prompt), ...fields };
    return JSON.stringify({ custom_id: record.recordId, method: 'POST', url: `${this.#path}${completion ? '/completions' : '/chat/completions'}`, body });
  }

  /** The input tokens a record enqueues: its prompt, estimated as the cost guard estimates it (chars/4). */
  enqueuedTokens(record: BatchRecord): number {
    return estimateTokens(promptText(record.request.prompt));
  }

  /** The answer cut at the stop sequences the model refuses (not sent), as the on-demand call cuts it. */
  finish(generation: Generation, params: GenerationParams): Generation {
    const { clientStops } = adaptParams(this.#caps, params);
    return clientStops.length > 0 ? { ...generation, text: cutAtStops(generation.text, clientStops) } : generation;
  }

  async submit(lines: readonly string[], key: string): Promise<string> {
    const first = JSON.parse(lines[0] ?? '{}') as { url?: string };
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([`${lines.join('\n')}\n`], { type: 'application/jsonl' }), `${key.replace(/[^A-Za-z0-9._-]/g, '_')}.jsonl`);
    const file = fileSchema.parse(await this.#call('POST', '/files', form));
    const body = { input_file_id: file.id, endpoint: first.url, completion_window: '24h', metadata: { polyeval_job: key } };
    return batchSchema.parse(await this.#call('POST', '/batches', JSON.stringify(body))).id;
  }

  /** The newest batch tagged `key` among the most recent 100 (a kill lands between create and record within seconds). */
  async find(key: string): Promise<string | undefined> {
    const list = listSchema.parse(await this.#call('GET', '/batches?limit=100'));
    return list.data.find((b) => b.metadata?.polyeval_job === key && b.status !== 'failed')?.id;
  }

  async status(jobId: string): Promise<BatchJobStatus> {
    return statusOf(batchSchema.parse(await this.#call('GET', `/batches/${encodeURIComponent(jobId)}`)));
  }

  async results(jobId: string): Promise<BatchResult[]> {
    const batch = batchSchema.parse(await this.#call('GET', `/batches/${encodeURIComponent(jobId)}`));
    const out: BatchResult[] = [];
    for (const fileId of [batch.output_file_id, batch.error_file_id]) {
      if (!fileId) continue;
      const text = (await this.#call('GET', `/files/${encodeURIComponent(fileId)}/content`, undefined, 'text')) as string;
      for (const line of text.split('\n')) if (line.trim() !== '') out.push(resultOf(outputLineSchema.parse(JSON.parse(line))));
    }
    return out;
  }

  async cancel(jobId: string): Promise<void> {
    await this.#call('POST', `/batches/${encodeURIComponent(jobId)}/cancel`);
  }

  async #call(method: 'GET' | 'POST', path: string, body?: string | FormData, read: 'json' | 'text' = 'json'): Promise<unknown> {
    const url = `${this.baseUrl}${path}`;
    const key = this.#key.for(url);
    try {
      const out = await this.#policy.call((signal) =>
        fetchJson(url, {
          method,
          headers: key === undefined ? {} : { authorization: `Bearer ${key}` },
          ...(body !== undefined ? { body } : {}),
          signal,
          now: () => this.opts.now(),
          read,
        }),
      );
      return out.value;
    } catch (err) {
      // vLLM and llama.cpp serve chat and completions but no batch routes: FastAPI's 404/405
      // (vllm/entrypoints/openai/api_server.py registers no /v1/batches or /v1/files), llama.cpp's
      // 404 (tools/server/server.cpp routes). Listing, uploading or creating is the first call a run makes.
      if (err instanceof ProviderCallError && (err.status === 404 || err.status === 405) && /^\/(batches|files)(\?|$)/.test(path)) {
        throw new InputError(NO_BATCH_API, {}, { cause: err });
      }
      throw err;
    }
  }
}

/** A batch object as a job status; `failed` carries the validation errors. */
function statusOf(batch: Batch): BatchJobStatus {
  const counts = { total: batch.request_counts?.total ?? 0, succeeded: batch.request_counts?.completed ?? 0, failed: batch.request_counts?.failed ?? 0 };
  const errors = (batch.errors?.data ?? []).map((e) => `${e.code ?? 'error'}${e.line ? ` (line ${e.line})` : ''}: ${e.message ?? ''}`.trim());
  const base = { providerStatus: batch.status, counts, ...(batch.expires_at ? { expiresAt: new Date(batch.expires_at * 1000).toISOString() } : {}) };
  switch (batch.status) {
    case 'validating':
      return { ...base, phase: 'queued' };
    case 'in_progress':
      return { ...base, phase: 'running' };
    case 'finalizing':
      return { ...base, phase: 'finishing' };
    case 'cancelling':
      return { ...base, phase: 'cancelling' };
    case 'completed':
      return { ...base, phase: 'ended', ending: 'completed' };
    case 'failed':
      return { ...base, phase: 'ended', ending: 'failed', reason: errors.join('; ').slice(0, 500) || 'the batch failed validation' };
    case 'expired':
      return { ...base, phase: 'ended', ending: 'expired', reason: 'the 24h completion window passed' };
    case 'cancelled':
      return { ...base, phase: 'ended', ending: 'cancelled', reason: 'the batch was cancelled' };
    default: {
      const never: never = batch.status;
      throw new Error(`unknown batch status ${String(never)}`);
    }
  }
}

/** One output or error line as a record's result. */
function resultOf(line: z.infer<typeof outputLineSchema>): BatchResult {
  const { response } = line;
  if (line.error || !response) return { recordId: line.custom_id, ok: false, error: `${line.error?.code ?? 'error'}: ${line.error?.message ?? 'no response'}` };
  if (response.status_code !== 200)
    return { recordId: line.custom_id, ok: false, error: `HTTP ${response.status_code}: ${serverMessage(JSON.stringify(response.body))}` };
  const chat = chatResponseSchema.safeParse(response.body);
  if (chat.success) {
    const generation = generationFromChat({ value: chat.data, latencyMs: 0, attempts: 1 }, '');
    // As on demand: an answer left empty by thinking is an error with that reason, billed, never scored.
    const empty = emptyForThinking(chat.data.choices[0], chat.data.usage);
    return empty ? { recordId: line.custom_id, ok: false, error: empty, billed: generation.usage } : { recordId: line.custom_id, ok: true, generation };
  }
  const completion = completionResponseSchema.safeParse(response.body);
  if (!completion.success) return { recordId: line.custom_id, ok: false, error: 'the response body is neither a chat completion nor a completion' };
  const choice = completion.data.choices[0];
  const text = choice?.text ?? '';
  return {
    recordId: line.custom_id,
    ok: true,
    generation: {
      text,
      usage: usageOf(completion.data.usage, '', text),
      latencyMs: 0,
      attempts: 1,
      ...(choice?.finish_reason ? { finishReason: choice.finish_reason } : {}),
    },
  };
}
