/**
 * A fake OpenAI-compatible server (the vLLM flavour): `POST <base>/chat/completions`,
 * `POST <base>/completions` (with `echo` + `logprobs` for choice scoring) and
 * `GET <base>/models`, with the real response shapes and error bodies.
 *
 * @example
 * // Favours the digit 4 after every ABRICOT prompt:
 * const server = await startOpenAiServer({ logprob: (ctx, tok) => (tok === '4' ? -0.1 : -3) });
 * // spec: `openai:${server.url}#fake-model`
 */
import { startFakeServer, type FakeServer, type FaultOptions, type RecordedRequest } from './http-server.ts';
import { flatLogprob, scoreText, tokenize, type LogprobFn } from './tokenize.ts';

export interface OpenAiServerOptions extends FaultOptions {
  /** Path prefix of the API (default `/v1`); `url` ends with it. */
  basePath?: string;
  /** When set, requests for any other model get 404 model_not_found. */
  model?: string;
  /** When set, requests without `Authorization: Bearer <apiKey>` get 401. */
  apiKey?: string;
  /** The generated text for a prompt (chat: system and messages joined by blank lines). Default "ok". */
  answer?: (prompt: string, body: Record<string, unknown>) => string;
  /** log P(token | context) for echoed prompt tokens. Default -1 for every token. */
  logprob?: LogprobFn;
  /** Answer `max_tokens: 0` with 400, like servers that need at least one new token. */
  rejectMaxTokensZero?: boolean;
  /** Leave `text_offset` out of logprobs, like some servers do. */
  omitTextOffset?: boolean;
}

export interface OpenAiServer extends FakeServer {
  /** Base URL including the base path, e.g. http://127.0.0.1:41234/v1 */
  url: string;
}

/** Starts the fake on 127.0.0.1 with a free port. */
export async function startOpenAiServer(options: OpenAiServerOptions = {}): Promise<OpenAiServer> {
  const basePath = options.basePath ?? '/v1';
  const answer = options.answer ?? (() => 'ok');
  const logprob = options.logprob ?? flatLogprob;

  const error = (status: number, type: string, message: string) => ({
    status,
    headers: {},
    body: { error: { message, type, code: status } },
  });

  const server = await startFakeServer(
    (req: RecordedRequest) => {
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return error(401, 'invalid_request_error', 'Incorrect API key provided');
      }
      const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
      if (req.method === 'GET' && req.path === `${basePath}/models`) {
        return { status: 200, body: { object: 'list', data: [{ id: options.model ?? 'fake-model', object: 'model' }] } };
      }
      if (req.method !== 'POST') return error(405, 'invalid_request_error', 'method not allowed');
      if (options.model !== undefined && body.model !== options.model) {
        return error(404, 'NotFoundError', `The model \`${String(body.model)}\` does not exist.`);
      }
      if (req.path === `${basePath}/chat/completions`) return chat(body);
      if (req.path === `${basePath}/completions`) return completion(body);
      return error(404, 'NotFoundError', `no route ${req.path}`);
    },
    error,
    options,
  );

  function generated(prompt: string, body: Record<string, unknown>): { text: string; tokens: string[]; finish: string } {
    const all = tokenize(answer(prompt, body));
    const max = typeof body.max_tokens === 'number' ? body.max_tokens : all.length;
    const tokens = all.slice(0, max);
    return { text: tokens.join(''), tokens, finish: tokens.length < all.length ? 'length' : 'stop' };
  }

  function chat(body: Record<string, unknown>) {
    const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
    if (messages.length === 0) return error(400, 'BadRequestError', 'messages must not be empty');
    const prompt = messages.map((m) => String(m.content ?? '')).join('\n\n');
    const out = generated(prompt, body);
    return {
      status: 200,
      body: {
        id: `chatcmpl-${server.requests.length}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: out.text }, finish_reason: out.finish }],
        usage: usage(tokenize(prompt).length, out.tokens.length),
      },
    };
  }

  function completion(body: Record<string, unknown>) {
    if (typeof body.prompt !== 'string') return error(400, 'BadRequestError', 'prompt must be a string');
    if (options.rejectMaxTokensZero && body.max_tokens === 0) {
      return error(400, 'BadRequestError', 'max_tokens must be at least 1, got 0.');
    }
    const prompt = body.prompt;
    const out = generated(prompt, body);
    const echo = body.echo === true;
    const wantLogprobs = typeof body.logprobs === 'number';
    const promptTokens = scoreText(prompt, logprob);
    let logprobs: unknown = null;
    if (wantLogprobs) {
      const echoed = echo ? promptTokens : [];
      const start = echo ? [...prompt].length : 0;
      let offset = start;
      const gen = out.tokens.map((text) => {
        const t = { text, offset, logprob: -0.5 };
        offset += [...text].length;
        return t;
      });
      const all = [...echoed, ...gen];
      logprobs = {
        tokens: all.map((t) => t.text),
        token_logprobs: all.map((t) => t.logprob),
        top_logprobs: all.map((t) => (t.logprob === null ? null : { [t.text]: t.logprob })),
        ...(options.omitTextOffset ? {} : { text_offset: all.map((t) => t.offset) }),
      };
    }
    return {
      status: 200,
      body: {
        id: `cmpl-${server.requests.length}`,
        object: 'text_completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, text: (echo ? prompt : '') + out.text, logprobs, finish_reason: out.finish }],
        usage: usage(promptTokens.length, out.tokens.length),
      },
    };
  }

  return { ...server, url: `${server.url}${basePath}` };
}

function usage(prompt: number, completion: number) {
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}
