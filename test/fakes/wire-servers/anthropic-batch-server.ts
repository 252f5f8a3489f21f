/**
 * A fake Anthropic Message Batches API: `POST /v1/messages/batches`, `GET
 * /v1/messages/batches/{id}`, `GET /v1/messages/batches`, `POST …/{id}/cancel` and `GET
 * …/{id}/results`. What it reproduces, from the Anthropic API reference ("Create / Retrieve /
 * List / Cancel a Message Batch", "Retrieve Message Batch results") and the batch-processing
 * guide (platform.claude.com/docs, read 2026-12; shapes as in @anthropic-ai/sdk 0.71
 * resources/messages/batches.d.ts):
 *
 * - create: `requests` of `{custom_id, params}`; a `custom_id` not matching
 *   `^[a-zA-Z0-9_-]{1,64}$`, a repeated one, `params` without `max_tokens` ≥ 1, or more than
 *   100,000 requests are a 400 `invalid_request_error` for the whole batch; headers
 *   `x-api-key` and `anthropic-version` are required.
 * - lifecycle, one step per poll: `processing_status` in_progress → ended, with `ended_at`
 *   and `results_url` set only once ended; `expires_at` = created_at + 24 h. "Retrieve a
 *   Message Batch", `request_counts`: "Requests start as processing and move to one of the
 *   other statuses only once processing of the entire batch ends"; their sum is the batch's
 *   request count at every moment.
 * - a request's `params` are validated asynchronously (batch-processing guide, "Batch
 *   limitations"/"Test your batch requests": validation errors come back in the results once
 *   the whole batch ended): an invalid body is an `errored` result with the Messages API's
 *   own 400 message (validateMessagesBody, the on-demand fake's rules), never a 400 on create.
 * - expiry: requests not done when the 24 hours pass end as `expired`.
 * - cancel: `canceling` (with `cancel_initiated_at`), then ended; requests not yet run end
 *   as `canceled`; the ones done keep their results.
 * - results: one line per request, `{custom_id, result: {type: succeeded, message} |
 *   {type: errored, error: {type: "error", error: {type, message}}} | {type: canceled} |
 *   {type: expired}}`, in no particular order (we reverse the input's); asking for the
 *   results of a batch still processing is a 400.
 *
 * @example
 * const server = await startAnthropicBatchServer({ apiKey: 'sk-ant-test', answer: () => '3' });
 */
import { startFakeServer, type FakeServer, type FaultOptions, type RecordedRequest } from './http-server.ts';
import { answerMessage, validateMessagesBody } from './anthropic-server.ts';

export interface AnthropicBatchServerOptions extends FaultOptions {
  /** The text of a request's answer (system and messages joined by blank lines), as the on-demand fake's `answer`. Default "ok". */
  answer?: (prompt: string, params: Record<string, unknown>) => string;
  /** A request that errors (e.g. an invalid parameter): its message. */
  reject?: (customId: string, params: Record<string, unknown>) => string | undefined;
  /** Polls of in_progress before every request is done (default 2); read on every poll. */
  progressPolls?: number;
  /** The 24 hours pass once this many requests are done: the rest expire. */
  expireAfter?: number;
  /** Required `x-api-key` (default: any non-empty key). */
  apiKey?: string;
}

interface FakeMessageBatch {
  id: string;
  status: 'in_progress' | 'canceling' | 'ended';
  created: number;
  requests: { custom_id: string; params: Record<string, unknown> }[];
  polls: number;
  done: number;
  cancelled: boolean;
  expired: boolean;
}

export interface AnthropicBatchServer extends FakeServer {
  batches(): readonly { id: string; status: string; requests: number }[];
}

const MAX_REQUESTS = 100_000;
const iso = (seconds: number): string => new Date(seconds * 1000).toISOString();

export async function startAnthropicBatchServer(options: AnthropicBatchServerOptions = {}): Promise<AnthropicBatchServer> {
  const batches: FakeMessageBatch[] = [];
  const error = (status: number, type: string, message: string) => ({ status, headers: {}, body: { type: 'error', error: { type, message } } });
  let base = '';

  const server = await startFakeServer(
    (req: RecordedRequest) => {
      const key = req.headers['x-api-key'];
      if (typeof key !== 'string' || key === '' || (options.apiKey !== undefined && key !== options.apiKey))
        return error(401, 'authentication_error', 'invalid x-api-key');
      if (typeof req.headers['anthropic-version'] !== 'string') return error(400, 'invalid_request_error', 'anthropic-version: header is required');
      const path = req.path.split('?')[0] ?? '';
      if (req.method === 'POST' && path === '/v1/messages/batches') return create(req.body as { requests?: unknown });
      if (req.method === 'GET' && path === '/v1/messages/batches')
        return {
          status: 200,
          body: { data: [...batches].reverse().map(view), has_more: false, first_id: batches.at(-1)?.id ?? null, last_id: batches[0]?.id ?? null },
        };
      const m = /^\/v1\/messages\/batches\/([^/]+)(\/cancel|\/results)?$/.exec(path);
      const batch = m ? batches.find((b) => b.id === decodeURIComponent(m[1] ?? '')) : undefined;
      if (!m || !batch) return error(404, 'not_found_error', 'Not found');
      if (req.method === 'GET' && !m[2]) return { status: 200, body: view(advance(batch)) };
      if (req.method === 'POST' && m[2] === '/cancel') {
        if (batch.status === 'in_progress') {
          batch.status = 'canceling';
          batch.cancelled = true;
        }
        return { status: 200, body: view(batch) };
      }
      if (req.method === 'GET' && m[2] === '/results') {
        if (batch.status !== 'ended')
          return error(400, 'invalid_request_error', `Message Batch ${batch.id} has not yet ended. Results are available once processing ends.`);
        return { status: 200, headers: { 'content-type': 'application/binary' }, body: `${results(batch).reverse().join('\n')}\n` };
      }
      return error(405, 'invalid_request_error', 'method not allowed');
    },
    error,
    options,
  );
  base = server.url;

  function create(body: { requests?: unknown }) {
    const requests = Array.isArray(body?.requests) ? (body.requests as { custom_id?: unknown; params?: Record<string, unknown> }[]) : undefined;
    if (!requests || requests.length === 0) return error(400, 'invalid_request_error', 'requests: Field required');
    if (requests.length > MAX_REQUESTS) return error(400, 'invalid_request_error', `requests: at most ${MAX_REQUESTS} requests per batch`);
    const seen = new Set<string>();
    for (const [i, r] of requests.entries()) {
      const id = String(r.custom_id ?? '');
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(id))
        return error(400, 'invalid_request_error', `requests.${i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
      if (seen.has(id)) return error(400, 'invalid_request_error', `Duplicate custom_id: ${id}`);
      seen.add(id);
      if (typeof r.params?.max_tokens !== 'number' || r.params.max_tokens < 1)
        return error(400, 'invalid_request_error', `requests.${i}.params.max_tokens: Field required (at least 1)`);
    }
    const batch: FakeMessageBatch = {
      id: `msgbatch_${String(batches.length + 1).padStart(24, '0')}`,
      status: 'in_progress',
      created: 1_764_000_000 + batches.length,
      requests: requests.map((r) => ({ custom_id: String(r.custom_id), params: r.params ?? {} })),
      polls: 0,
      done: 0,
      cancelled: false,
      expired: false,
    };
    batches.push(batch);
    return { status: 200, body: view(batch) };
  }

  function advance(batch: FakeMessageBatch): FakeMessageBatch {
    const total = batch.requests.length;
    if (batch.status === 'canceling') batch.status = 'ended';
    else if (batch.status === 'in_progress') {
      batch.polls += 1;
      batch.done = Math.max(batch.done, Math.min(total, Math.floor((total * batch.polls) / (options.progressPolls ?? 2))));
      if (options.expireAfter !== undefined && batch.done >= options.expireAfter) {
        batch.done = options.expireAfter;
        batch.expired = true;
        batch.status = 'ended';
      } else if (batch.done === total) batch.status = 'ended';
    }
    return batch;
  }

  function results(batch: FakeMessageBatch): string[] {
    return batch.requests.map((r, i) => {
      if (i >= batch.done) return JSON.stringify({ custom_id: r.custom_id, result: { type: batch.cancelled ? 'canceled' : 'expired' } });
      const rejected = failure(r);
      if (rejected)
        return JSON.stringify({
          custom_id: r.custom_id,
          result: { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error', message: rejected } } },
        });
      return JSON.stringify({ custom_id: r.custom_id, result: { type: 'succeeded', message: message(r.params, i) } });
    });
  }

  /** Why a request errors: its params fail the Messages API's validation, or the test rejects it. */
  function failure(r: { custom_id: string; params: Record<string, unknown> }): string | undefined {
    return validateMessagesBody(r.params) ?? options.reject?.(r.custom_id, r.params);
  }

  /** A succeeded request's message: what the Messages API answers the same body. */
  function message(params: Record<string, unknown>, i: number) {
    return { ...answerMessage(params, options.answer ?? (() => 'ok')), id: `msg_${String(i).padStart(6, '0')}` };
  }

  function view(b: FakeMessageBatch) {
    const ended = b.status === 'ended';
    const errored = ended ? b.requests.slice(0, b.done).filter((r) => failure(r) !== undefined).length : 0;
    const left = b.requests.length - b.done;
    return {
      id: b.id,
      type: 'message_batch',
      processing_status: b.status,
      request_counts: ended
        ? { processing: 0, succeeded: b.done - errored, errored, canceled: b.cancelled ? left : 0, expired: b.expired ? left : 0 }
        : { processing: b.requests.length, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
      created_at: iso(b.created),
      expires_at: iso(b.created + 86_400),
      ended_at: ended ? iso(b.created + 60) : null,
      cancel_initiated_at: b.cancelled ? iso(b.created + 30) : null,
      archived_at: null,
      results_url: ended ? `${base}/v1/messages/batches/${b.id}/results` : null,
    };
  }

  return { ...server, batches: () => batches.map((b) => ({ id: b.id, status: b.status, requests: b.requests.length })) };
}
