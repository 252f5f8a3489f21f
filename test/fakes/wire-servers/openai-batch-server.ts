/**
 * A fake OpenAI Batch API: `POST /v1/files` (multipart, `purpose=batch`), `GET
 * /v1/files/{id}/content`, `POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/batches`
 * and `POST /v1/batches/{id}/cancel`, answering each request line the way the chat and
 * completions endpoints would. What it reproduces, from the OpenAI API reference ("Batch",
 * "Files", and the Batch guide, platform.openai.com/docs, read 2026-12; the same shapes are
 * in openai-node v4.56 src/resources/batches.ts, `Batch` and `BatchRequestCounts`):
 *
 * - create: `completion_window` must be `24h`; `endpoint` one of the batch endpoints; the
 *   file must have been uploaded with `purpose: "batch"` (else 400 invalid_request_error);
 *   `metadata` is kept and listed back.
 * - validation (status `failed`, `errors.data[{code, message, line}]`): more than 50,000
 *   requests, a line whose `url` is not the batch's endpoint, a repeated `custom_id`, lines
 *   naming different models.
 * - lifecycle, one step per poll: validating → in_progress (request_counts.completed grows)
 *   → finalizing → completed; `expires_at` = created_at + 24 h.
 * - expiry: requests not done when the window passes are not run: the batch is `expired`,
 *   finished requests are in the output file, the others in the error file with
 *   `error.code: "batch_expired"`; only finished requests are billed.
 * - cancel: `cancelling`, then `cancelled` on the next poll; finished requests in the output
 *   file, the others in the error file with `batch_cancelled`.
 * - a request the API rejects (e.g. a 400 for a bad parameter) is a line of the error file
 *   with `response.status_code` and the error body, and counts as `failed`.
 * - the batch queue limit (`enqueuedTokenLimit`): a batch whose input tokens, added to those of
 *   the model's batches still validating or in progress, pass the limit fails validation with
 *   `token_limit_exceeded` "Enqueued token limit reached for <model> in organization
 *   org-fake. Limit: N enqueued tokens. Please try again once some in_progress batches have
 *   been completed." (the Batch API FAQ, help.openai.com 9197833: the limit counts input
 *   tokens enqueued at one time; the message as users report it on community.openai.com,
 *   'Enqueued token limit reached', and Microsoft Q&A 2285577 for Azure's). Tokens are
 *   counted as the prompt's characters / 4 (what polyeval estimates; OpenAI's own count differs).
 * - output lines: `{id, custom_id, response: {status_code, request_id, body}, error}`; the
 *   order of lines is not the input's (the guide says to match by custom_id): we reverse it.
 *
 * A little over 250 lines: files, batches and the per-request answers share one state.
 *
 * @example
 * const server = await startOpenAiBatchServer({ answer: () => '3' });
 * // spec: `openai:${server.url}#fake-model`, with --batch
 */
import { startFakeServer, type FakeServer, type FaultOptions, type RecordedRequest } from './http-server.ts';
import { tokenize } from './tokenize.ts';

export interface OpenAiBatchServerOptions extends FaultOptions {
  /** The generated text for a prompt (chat: messages joined by blank lines). Default "ok". */
  answer?: (prompt: string, body: Record<string, unknown>) => string;
  /** A request the API rejects: its status and message (an error-file line, counted as failed). */
  reject?: (customId: string, body: Record<string, unknown>) => { status: number; message: string } | undefined;
  /** Polls of `in_progress` before every request is done (default 2). Read on every poll, so a test may change it. */
  progressPolls?: number;
  /** The window passes once this many requests are done: the batch expires with the rest undone. */
  expireAfter?: number;
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  /** The model's batch queue limit in input tokens (see the header); default none. */
  enqueuedTokenLimit?: number;
  /**
   * Chat: reasoning tokens a request spends before its answer (default none). As on demand
   * (openai-server.ts; OpenAI's reasoning guide, "Allocating space for reasoning"): they count
   * against `max_completion_tokens`, are reported in `usage.completion_tokens_details.reasoning_tokens`,
   * and a limit they use up leaves `content: ""` with `finish_reason: "length"`.
   */
  reasoning?: (body: Record<string, unknown>) => number;
}

interface FakeBatch {
  id: string;
  endpoint: string;
  input_file_id: string;
  status: string;
  created_at: number;
  metadata: Record<string, string> | null;
  lines: Record<string, unknown>[];
  done: number;
  polls: number;
  errors: { code: string; message: string; line: number }[];
  output_file_id: string | null;
  error_file_id: string | null;
}

export interface OpenAiBatchServer extends FakeServer {
  /** Base URL with `/v1`. */
  url: string;
  /** Every batch created, oldest first. */
  batches(): readonly { id: string; status: string; requests: number }[];
}

const ENDPOINTS = new Set(['/v1/chat/completions', '/v1/completions', '/v1/responses', '/v1/embeddings']);
const MAX_REQUESTS = 50_000;

export async function startOpenAiBatchServer(options: OpenAiBatchServerOptions = {}): Promise<OpenAiBatchServer> {
  const answer = options.answer ?? (() => 'ok');
  const files = new Map<string, { purpose: string; text: string; filename: string }>();
  const batches: FakeBatch[] = [];
  let counter = 0;
  const nextId = (prefix: string): string => `${prefix}_${String(++counter).padStart(6, '0')}`;
  const error = (status: number, type: string, message: string) => ({ status, headers: {}, body: { error: { message, type, param: null, code: null } } });

  const server = await startFakeServer(
    (req: RecordedRequest) => {
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`)
        return error(401, 'invalid_request_error', 'Incorrect API key provided');
      const path = req.path.split('?')[0] ?? '';
      if (req.method === 'POST' && path === '/v1/files') return upload(req);
      const content = /^\/v1\/files\/([^/]+)\/content$/.exec(path);
      if (req.method === 'GET' && content) {
        const file = files.get(decodeURIComponent(content[1] ?? ''));
        return file
          ? { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: file.text }
          : error(404, 'invalid_request_error', 'No such File object');
      }
      if (req.method === 'POST' && path === '/v1/batches') return create(req.body as Record<string, unknown>);
      if (req.method === 'GET' && path === '/v1/batches')
        return { status: 200, body: { object: 'list', data: [...batches].reverse().slice(0, 100).map(view), has_more: batches.length > 100 } };
      const one = /^\/v1\/batches\/([^/]+)(\/cancel)?$/.exec(path);
      const batch = one ? batches.find((b) => b.id === decodeURIComponent(one[1] ?? '')) : undefined;
      if (one && !batch) return error(404, 'invalid_request_error', 'No such Batch object');
      if (batch && req.method === 'GET' && !one?.[2]) return { status: 200, body: view(advance(batch)) };
      if (batch && req.method === 'POST' && one?.[2]) return cancel(batch);
      return error(404, 'invalid_request_error', `Unknown request URL: ${req.method} ${req.path}`);
    },
    error,
    options,
  );

  function upload(req: RecordedRequest) {
    const type = String(req.headers['content-type'] ?? '');
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
    if (!boundary || typeof req.body !== 'string') return error(400, 'invalid_request_error', "'file' is a required property");
    const parts = multipart(req.body, boundary[1] ?? boundary[2] ?? '');
    const purpose = parts.find((p) => p.name === 'purpose')?.value;
    const file = parts.find((p) => p.name === 'file');
    if (!file) return error(400, 'invalid_request_error', "'file' is a required property");
    if (purpose !== 'batch' && purpose !== 'fine-tune' && purpose !== 'assistants')
      return error(400, 'invalid_request_error', `'${purpose ?? ''}' is not one of ['fine-tune', 'assistants', 'batch', ...] - 'purpose'`);
    const id = nextId('file');
    files.set(id, { purpose, text: file.value, filename: file.filename ?? 'upload' });
    return {
      status: 200,
      body: { id, object: 'file', bytes: Buffer.byteLength(file.value), created_at: 1_764_000_000 + counter, filename: file.filename, purpose },
    };
  }

  function create(body: Record<string, unknown>) {
    if (body.completion_window !== '24h') return error(400, 'invalid_request_error', "Invalid value for 'completion_window': only '24h' is supported.");
    if (typeof body.endpoint !== 'string' || !ENDPOINTS.has(body.endpoint))
      return error(400, 'invalid_request_error', `Invalid value for 'endpoint': ${String(body.endpoint)}`);
    const file = files.get(String(body.input_file_id));
    if (!file) return error(400, 'invalid_request_error', `No such File object: ${String(body.input_file_id)}`);
    if (file.purpose !== 'batch') return error(400, 'invalid_request_error', "The input file must be uploaded with purpose 'batch'.");
    const lines = file.text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const batch: FakeBatch = {
      id: nextId('batch'),
      endpoint: body.endpoint,
      input_file_id: String(body.input_file_id),
      status: 'validating',
      created_at: 1_764_000_000 + counter,
      metadata: (body.metadata as Record<string, string> | undefined) ?? null,
      lines,
      done: 0,
      polls: 0,
      errors: [...validate(lines, body.endpoint), ...queueLimit(lines)],
      output_file_id: null,
      error_file_id: null,
    };
    batches.push(batch);
    return { status: 200, body: view(batch) };
  }

  /** Input tokens of a batch's lines (chars / 4 of the messages or prompt). */
  function inputTokens(lines: Record<string, unknown>[]): number {
    return lines.reduce((sum, line) => {
      const body = (line.body ?? {}) as { messages?: { content?: unknown }[]; prompt?: unknown };
      const text = body.messages ? body.messages.map((m) => String(m.content ?? '')).join('') : String(body.prompt ?? '');
      return sum + Math.floor(text.length / 4);
    }, 0);
  }

  function queueLimit(lines: Record<string, unknown>[]): FakeBatch['errors'] {
    const limit = options.enqueuedTokenLimit;
    if (limit === undefined) return [];
    const queued = batches.filter((b) => b.status === 'validating' || b.status === 'in_progress').reduce((sum, b) => sum + inputTokens(b.lines), 0);
    if (queued + inputTokens(lines) <= limit) return [];
    const model = String((lines[0]?.body as Record<string, unknown> | undefined)?.model);
    return [
      {
        code: 'token_limit_exceeded',
        message: `Enqueued token limit reached for ${model} in organization org-fake. Limit: ${limit} enqueued tokens. Please try again once some in_progress batches have been completed.`,
        line: 0,
      },
    ];
  }

  function validate(lines: Record<string, unknown>[], endpoint: string): FakeBatch['errors'] {
    if (lines.length > MAX_REQUESTS)
      return [{ code: 'too_many_requests', message: `The batch input file has ${lines.length} requests; at most ${MAX_REQUESTS} are allowed.`, line: 0 }];
    const errors: FakeBatch['errors'] = [];
    const seen = new Set<string>();
    const models = new Set<string>();
    lines.forEach((line, i) => {
      if (line.url !== endpoint)
        errors.push({ code: 'mismatched_endpoint', message: `The url '${String(line.url)}' does not match the batch endpoint '${endpoint}'.`, line: i + 1 });
      if (seen.has(String(line.custom_id)))
        errors.push({ code: 'duplicate_custom_id', message: `The custom_id '${String(line.custom_id)}' is repeated.`, line: i + 1 });
      seen.add(String(line.custom_id));
      models.add(String((line.body as Record<string, unknown> | undefined)?.model));
    });
    if (models.size > 1) errors.push({ code: 'mismatched_model', message: 'All requests in a batch must use the same model.', line: 1 });
    return errors;
  }

  /** One step of the lifecycle per poll. */
  function advance(batch: FakeBatch): FakeBatch {
    const total = batch.lines.length;
    switch (batch.status) {
      case 'validating':
        batch.status = batch.errors.length > 0 ? 'failed' : 'in_progress';
        break;
      case 'in_progress':
        batch.polls += 1;
        batch.done = Math.max(batch.done, Math.min(total, Math.floor((total * batch.polls) / (options.progressPolls ?? 2))));
        if (options.expireAfter !== undefined && batch.done >= options.expireAfter) {
          batch.done = options.expireAfter;
          end(batch, 'expired');
        } else if (batch.done === total) batch.status = 'finalizing';
        break;
      case 'finalizing':
        end(batch, 'completed');
        break;
      case 'cancelling':
        end(batch, 'cancelled');
        break;
      default:
        break;
    }
    return batch;
  }

  function cancel(batch: FakeBatch) {
    if (batch.status === 'validating' || batch.status === 'in_progress' || batch.status === 'finalizing') batch.status = 'cancelling';
    else if (batch.status !== 'cancelling') return error(409, 'invalid_request_error', `Cannot cancel a batch with status '${batch.status}'.`);
    return { status: 200, body: view(batch) };
  }

  /** Writes the output and error files; requests past `done` were never run. */
  function end(batch: FakeBatch, status: 'completed' | 'expired' | 'cancelled'): void {
    const output: string[] = [];
    const errors: string[] = [];
    batch.lines.forEach((line, i) => {
      const id = `batch_req_${batch.id}_${i}`;
      if (i >= batch.done) {
        const code = status === 'expired' ? 'batch_expired' : 'batch_cancelled';
        const message =
          status === 'expired'
            ? 'This request could not be executed before the completion window expired.'
            : 'This request was not executed because the batch was cancelled.';
        errors.push(JSON.stringify({ id, custom_id: line.custom_id, response: null, error: { code, message } }));
        return;
      }
      const body = (line.body ?? {}) as Record<string, unknown>;
      const rejected = options.reject?.(String(line.custom_id), body);
      if (rejected) {
        errors.push(
          JSON.stringify({
            id,
            custom_id: line.custom_id,
            response: {
              status_code: rejected.status,
              request_id: `req_${i}`,
              body: { error: { message: rejected.message, type: 'invalid_request_error', param: null, code: null } },
            },
            error: null,
          }),
        );
        return;
      }
      output.push(
        JSON.stringify({
          id,
          custom_id: line.custom_id,
          response: { status_code: 200, request_id: `req_${i}`, body: respond(batch.endpoint, body, i) },
          error: null,
        }),
      );
    });
    batch.status = status;
    if (output.length > 0) batch.output_file_id = store(output.reverse());
    if (errors.length > 0) batch.error_file_id = store(errors.reverse());
  }

  function store(lines: string[]): string {
    const id = nextId('file');
    files.set(id, { purpose: 'batch_output', text: `${lines.join('\n')}\n`, filename: 'batch_output.jsonl' });
    return id;
  }

  function respond(endpoint: string, body: Record<string, unknown>, i: number): unknown {
    const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
    const prompt = endpoint === '/v1/completions' ? String(body.prompt ?? '') : messages.map((m) => String(m.content ?? '')).join('\n\n');
    const limit = body.max_completion_tokens ?? body.max_tokens;
    const max = typeof limit === 'number' ? limit : Infinity;
    const reasoning = endpoint === '/v1/chat/completions' ? Math.min(max, options.reasoning?.(body) ?? 0) : 0;
    const all = tokenize(answer(prompt, body));
    const tokens = all.slice(0, Math.max(0, max - reasoning));
    const text = tokens.join('');
    const cut = tokens.length < all.length;
    const completionTokens = reasoning + tokens.length;
    const usage = {
      prompt_tokens: tokenize(prompt).length,
      completion_tokens: completionTokens,
      total_tokens: tokenize(prompt).length + completionTokens,
      ...(reasoning > 0 ? { completion_tokens_details: { reasoning_tokens: reasoning } } : {}),
    };
    const head = { id: `chatcmpl-${i}`, created: 1_764_000_000, model: body.model };
    if (endpoint === '/v1/completions')
      return { ...head, object: 'text_completion', choices: [{ index: 0, text, finish_reason: 'stop', logprobs: null }], usage };
    return {
      ...head,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: cut ? 'length' : 'stop', logprobs: null }],
      usage,
    };
  }

  function view(b: FakeBatch) {
    const ran =
      b.status === 'completed' || b.status === 'expired' || b.status === 'cancelled' ? b.done : b.status === 'validating' || b.status === 'failed' ? 0 : b.done;
    const failed = b.lines.slice(0, ran).filter((l) => options.reject?.(String(l.custom_id), (l.body ?? {}) as Record<string, unknown>)).length;
    return {
      id: b.id,
      object: 'batch',
      endpoint: b.endpoint,
      errors: b.errors.length > 0 ? { object: 'list', data: b.errors.map((e) => ({ ...e, param: null })) } : null,
      input_file_id: b.input_file_id,
      completion_window: '24h',
      status: b.status,
      output_file_id: b.output_file_id,
      error_file_id: b.error_file_id,
      created_at: b.created_at,
      expires_at: b.created_at + 86_400,
      request_counts: { total: b.status === 'failed' ? 0 : b.lines.length, completed: ran - failed, failed },
      metadata: b.metadata,
    };
  }

  return {
    ...server,
    url: `${server.url}/v1`,
    batches: () => batches.map((b) => ({ id: b.id, status: b.status, requests: b.lines.length })),
  };
}

/** The parts of a multipart/form-data body (RFC 7578): name, optional filename, value. */
function multipart(body: string, boundary: string): { name: string; filename?: string; value: string }[] {
  const out: { name: string; filename?: string; value: string }[] = [];
  for (const part of body.split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    if (name === undefined) continue;
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    out.push({ name, ...(filename !== undefined ? { filename } : {}), value: part.slice(split + 4).replace(/\r\n$/, '') });
  }
  return out;
}
