/**
 * A fake SageMaker runtime: `POST /endpoints/{name}/invocations`, answering the payload it
 * receives the way the container behind it would — Hugging Face TGI v3.3.7 for `{inputs,
 * parameters}` (`details` brings generated-token details; `decoder_input_details` the
 * prefill, BOS first with a null log-probability; router/src/server.rs, lib.rs) and vLLM's
 * OpenAI chat for `{messages}` (with `prompt_logprobs`, and `logprobs`/`top_logprobs`).
 * Service errors use SageMaker's own codes, e.g. ThrottlingException as HTTP 400; a
 * container slower than the real-time limit gets SageMaker's 60 s timeout ModelError.
 */
import { startFakeServer, type FakeServer, type FaultOptions, type RecordedRequest } from './http-server.ts';
import { payloadParts } from './event-stream.ts';
import { familyChat } from './family-chat.ts';
import { describeTokens, encodePrompt, type TokenizerName } from './real-tokenizers.ts';
import { flatLogprob, scoreText, tokenId, tokenize, type LogprobFn } from './tokenize.ts';

export interface SageMakerServerOptions extends FaultOptions {
  /** Endpoint names served; others get ValidationError "Endpoint … not found". Default: any. */
  endpoints?: string[];
  /** The generated text for a prompt (TGI: `inputs`; chat: message contents joined by blank lines). Default "ok". */
  answer?: (prompt: string, body: Record<string, unknown>) => string;
  /** log P(token | context) for prompt tokens. Default -1 for every token. */
  logprob?: LogprobFn;
  /**
   * A real tokenizer family: TGI's generated tokens, `top_n_tokens` and prefill, and the chat
   * container's answer, are that family's (family-chat.ts): TGI spells a generated token as its
   * text in context (`▁` as " ": server/text_generation_server/models/flash_causal_lm.py
   * `decode_token`) and a prefill token or a top token by decoding its id alone (same file,
   * `prefill_texts`/`toptoken_texts = self.tokenizer.batch_decode(...)`: a lone `▁` is ""); the
   * chat container (LMI's vLLM) as vLLM does (per-id decode).
   */
  tokenizer?: TokenizerName;
  /** The chat container ignores `prompt_logprobs` (not vLLM): the field stays null. */
  noPromptLogprobs?: boolean;
  /** Generations of more than this many tokens outlive SageMaker's 60 s real-time limit. */
  realtimeTokenLimit?: number;
  /**
   * The first `times` (default 1) response streams fail after `afterTokens` tokens with the
   * container's in-stream error event, under a 200 (see `streamErrorEvent`).
   */
  streamError?: {
    afterTokens: number;
    times?: number;
    tgiErrorType?: string;
    /**
     * The stream just ends there, cleanly, with no error event, no final event (TGI's
     * `generated_text`/`details`) and no `finish_reason` or `[DONE]`: a fault, not a server
     * behaviour — what a client sees when a proxy or a container dies mid-stream and the
     * connection is closed in an orderly way.
     */
    ends?: boolean;
  };
  /**
   * TGI launched with `--enable-prefill-logprobs` (default true here). TGI >= 3.0 turns prompt
   * log-probabilities off unless it is (launcher/src/main.rs sets REQUEST_LOGPROBS;
   * server/text_generation_server/models/flash_causal_lm.py sets `r.prefill_logprobs = False`
   * without it), so `decoder_input_details` then brings `prefill: []`.
   */
  prefillLogprobs?: boolean;
  /**
   * Endpoints that host inference components, with the components' names. A request to such an
   * endpoint must name one in the `X-Amzn-SageMaker-Inference-Component` header — the header the
   * AWS SDK for JavaScript (client-sagemaker-runtime 3.1164.0, dist-cjs/index.js, the
   * `InferenceComponentName` member of InvokeEndpoint and InvokeEndpointWithResponseStream, header
   * `_XASIC`) sends; SageMaker Runtime API reference, InvokeEndpoint: "If the endpoint hosts one or
   * more inference components, this parameter specifies the name of inference component to invoke".
   * Without it, or with another name, the fake answers 400 ValidationError (the wording of those two
   * messages is the fake's own: not verified against the service).
   */
  inferenceComponents?: Record<string, string[]>;
  /**
   * The container that refuses past `capacity`: `tgi` (default) answers 429 `overloaded`;
   * `djl-serving` (the LMI container) answers 503 with `{"code": 503, "type":
   * "WlmCapacityException", "message": "Worker queue capacity exceeded for model: <id>"}` —
   * djl-serving @ v0.36.0-24-gd21927c4: the message is WorkLoadManager.java `runJob`'s
   * (`"Worker queue capacity exceeded for model: " + wpc.getId()`; the id here is the fake's
   * `lmi`), InferenceRequestHandler.java `onException` sends it with
   * `config.getThrottleErrorHttpCode()` (ConfigManager.java, 503 by default) and
   * NettyUtils.java `sendError` writes the body as ErrorResponse {code, type (the exception's
   * simple class name), message}.
   */
  container?: 'tgi' | 'djl-serving';
  /**
   * Inference components scaled in to zero copies, with how many invocations each refuses
   * before its first copy is in service. Each refused call gets SageMaker's HTTP 400
   * ValidationError "Inference Component has no capacity to process this request.
   * ApplicationAutoScaling may be in-progress (if configured) or try to increase the capacity by
   * invoking UpdateInferenceComponentRuntimeConfig API." (as quoted by the AWS Machine Learning
   * Blog, "Unlock cost savings with the new scale down to zero feature in SageMaker Inference";
   * SageMaker Developer Guide, "Scale an endpoint to zero instances": every invocation errors
   * while the first instance is provisioned).
   */
  scaledToZero?: Record<string, number>;
}

/** TGI's default `--max-top-n-tokens` (launcher/src/main.rs, v3.3.7). */
const MAX_TOP_N_TOKENS = 5;

const INVOCATIONS = /^\/endpoints\/([^/]+)\/invocations(-response-stream)?$/;

/** The SSE an overloaded TGI v3.3.7 streams on the route its /invocations picks for `body` (see `error` below). */
function overloadedStream(body: unknown, message: string): string {
  const openaiRoute = typeof body === 'object' && body !== null && ('messages' in body || 'prompt' in body);
  return openaiRoute
    ? `data:${JSON.stringify({ error: { message, http_status_code: 422 } })}\n\ndata:[DONE]\n\n`
    : `data:${JSON.stringify({ error: message, error_type: 'overloaded' })}\n\n`;
}

/** The fake vLLM chat template: the final assistant message stays open under continue_final_message. */
export function renderChat(messages: { role?: string; content?: unknown }[], continueFinal: boolean): string {
  return messages
    .map((m, i) => {
      const open = `<|${m.role ?? 'user'}|>\n${String(m.content ?? '')}`;
      return continueFinal && i === messages.length - 1 ? open : `${open}<|end|>\n`;
    })
    .join('')
    .concat(continueFinal ? '' : '<|assistant|>\n');
}

/** Starts the fake on 127.0.0.1 with a free port; use `url` as the endpoint. */
export async function startSageMakerServer(options: SageMakerServerOptions = {}): Promise<FakeServer> {
  const answer = options.answer ?? (() => 'ok');
  let streamFailures = options.streamError ? (options.streamError.times ?? 1) : 0;
  const logprob = options.logprob ?? flatLogprob;
  const scaledToZero = { ...options.scaledToZero };
  const error = (status: number, type: string, message: string, req?: RecordedRequest): { status: number; headers: Record<string, string>; body: unknown } =>
    // TGI's stream route takes its permit inside the stream (router/src/server.rs v3.3.7
    // `generate_stream_internal`: `infer.generate_stream(req)` is awaited inside
    // `async_stream::stream!`, and infer/mod.rs `generate_stream` fails with
    // InferError::Overloaded when `limit_concurrent_requests.try_acquire_owned()` finds no
    // permit), so an overloaded TGI answers a stream with 200 and an error event, which SageMaker
    // passes through as a PayloadPart. Its shape depends on the route TGI's /invocations picks
    // (router/src/sagemaker.rs `sagemaker_compatibility`: a body with `messages` is a Chat request,
    // one with `prompt` a Completion, else Generate): `generate_stream` sends
    // `{"error": "Model is overloaded", "error_type": "overloaded"}` (`impl From<InferError> for
    // Event`) and stops; `chat_completions` and `completions` send
    // `{"error": {"message": "Model is overloaded", "http_status_code": 422}}`
    // (infer/mod.rs `InferError::into_openai_event`) and then `data: [DONE]`.
    type === 'overloaded' && options.container !== 'djl-serving' && req !== undefined && INVOCATIONS.exec(req.path)?.[2] !== undefined
      ? {
          status: 200,
          headers: { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-sagemaker-content-type': 'text/event-stream' },
          body: payloadParts(overloadedStream(req.body, message)),
        }
      : // A 424 fault stands for the container refusing the payload: SageMaker wraps its 422 in a ModelError.
        status === 424
        ? modelError(message, 422)
        : // The container (TGI: router/src/server.rs, 429 {"error", "error_type": "overloaded"}) is full;
          // SageMaker passes any container 4xx/5xx on as ModelError, HTTP 424, with its status in
          // OriginalStatusCode (SageMaker Runtime API reference, InvokeEndpoint, Errors: ModelError).
          type === 'overloaded' && options.container === 'djl-serving'
          ? modelError(JSON.stringify({ code: 503, type: 'WlmCapacityException', message: 'Worker queue capacity exceeded for model: lmi' }), 503)
          : type === 'overloaded'
            ? modelError(JSON.stringify({ error: message, error_type: 'overloaded' }), 429)
            : {
                // SageMaker runtime answers throttling with HTTP 400 and the error code decides.
                status: type === 'ThrottlingException' ? 400 : status,
                headers: { 'x-amzn-errortype': type === 'ValidationException' ? 'ValidationError' : type, 'x-amzn-requestid': 'fake' },
                body: { message },
              };

  return startFakeServer(
    (req: RecordedRequest) => {
      const match = INVOCATIONS.exec(req.path);
      if (req.method !== 'POST' || !match) return error(404, 'UnknownOperationException', `no route ${req.method} ${req.path}`);
      const name = decodeURIComponent(match[1] ?? '');
      if (options.endpoints && !options.endpoints.includes(name)) {
        return error(400, 'ValidationError', `Endpoint ${name} of account 000000000000 not found.`);
      }
      const components = options.inferenceComponents?.[name];
      if (components) {
        const header = req.headers['x-amzn-sagemaker-inference-component'];
        if (header === undefined) return error(400, 'ValidationError', `Endpoint ${name} hosts inference components: name one with InferenceComponentName.`);
        if (!components.includes(String(header))) return error(400, 'ValidationError', `Inference component ${String(header)} not found on endpoint ${name}.`);
        const refusals = scaledToZero[String(header)] ?? 0;
        if (refusals > 0) {
          scaledToZero[String(header)] = refusals - 1;
          return error(
            400,
            'ValidationError',
            'Inference Component has no capacity to process this request. ApplicationAutoScaling may be in-progress (if configured) or try to increase the capacity by invoking UpdateInferenceComponentRuntimeConfig API.',
          );
        }
      }
      const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
      if (match[2]) return stream(body);
      if (typeof body.inputs === 'string') return tgi(body.inputs, body);
      if (Array.isArray(body.messages)) return vllmChat(body.messages as { role?: string; content?: unknown }[], body);
      return modelError('payload has neither "inputs" nor "messages"');
    },
    error,
    options,
  );

  function generate(prompt: string, body: Record<string, unknown>, max: unknown): { tokens: string[]; finish: string } {
    const all = tokenize(answer(prompt, body));
    const tokens = typeof max === 'number' ? all.slice(0, max) : all;
    return { tokens, finish: tokens.length < all.length ? 'length' : 'eos_token' };
  }

  function tgi(inputs: string, body: Record<string, unknown>) {
    const params = (body.parameters ?? {}) as Record<string, unknown>;
    // TGI v3.3.7 router/src/validation.rs `validate`: `temperature.unwrap_or(1.0) <= 0.0` is an
    // error whatever `do_sample` says, and so is `max_new_tokens: 0`.
    if (typeof params.temperature === 'number' && params.temperature <= 0) {
      return modelError('Input validation error: `temperature` must be strictly positive', 422);
    }
    if (params.max_new_tokens === 0) return modelError('Input validation error: `max_new_tokens` must be strictly positive', 422);
    // router/src/validation.rs `validate` (v3.3.7): top_p must be in (0, 1); top_n_tokens at most --max-top-n-tokens.
    if (params.top_p !== undefined && params.top_p !== null && !(Number(params.top_p) > 0 && Number(params.top_p) < 1)) {
      return modelError('Input validation error: `top_p` must be > 0.0 and < 1.0', 422);
    }
    const topN = typeof params.top_n_tokens === 'number' ? params.top_n_tokens : 0;
    if (topN > MAX_TOP_N_TOKENS) return modelError(`Input validation error: \`top_n_tokens\` must be >= 0 and <= ${MAX_TOP_N_TOKENS}. Given: ${topN}`, 422);
    if (options.tokenizer) return tgiFamily(options.tokenizer, inputs, body, params, topN);
    const out = generate(inputs, body, params.max_new_tokens);
    if (options.realtimeTokenLimit !== undefined && out.tokens.length > options.realtimeTokenLimit) return realtimeTimeout();
    const details = params.details === true;
    const withPrefill = params.decoder_input_details === true && options.prefillLogprobs !== false;
    // Details.top_tokens (router/src/lib.rs): per generated token, the top_n_tokens alternatives.
    const topTokens =
      topN > 0
        ? out.tokens.map((_, i) =>
            topAfter(inputs + out.tokens.slice(0, i).join(''), topN).map((t) => ({ id: tokenId(t.token), text: t.token, logprob: t.logprob, special: false })),
          )
        : undefined;
    // TGI's prefill starts with the BOS token, whose log-probability is undefined (null).
    const prefill = [
      { id: 1, text: '<s>', logprob: null },
      ...scoreText(inputs, logprob).map((t) => ({ id: tokenId(t.text), text: t.text, logprob: t.logprob ?? -1 })),
    ];
    return {
      status: 200,
      body: [
        {
          generated_text: out.tokens.join(''),
          ...(details
            ? {
                details: {
                  finish_reason: out.finish === 'length' ? 'length' : 'eos_token',
                  generated_tokens: out.tokens.length,
                  seed: params.seed ?? null,
                  prefill: withPrefill ? prefill : [],
                  tokens: out.tokens.map((t) => ({ id: tokenId(t), text: t, logprob: -0.5, special: false })),
                  ...(topTokens ? { top_tokens: topTokens } : {}),
                },
              }
            : {}),
        },
      ],
    };
  }

  /**
   * InvokeEndpointWithResponseStream: the container's server-sent events (TGI: a `token`
   * per event, `generated_text` and `details` on the last; vLLM: chat chunks, a usage chunk,
   * `[DONE]`) carried in PayloadPart events, split mid-line. No 60 s limit on a stream.
   */
  function stream(body: Record<string, unknown>) {
    const events: unknown[] = [];
    if (typeof body.inputs === 'string') {
      const params = (body.parameters ?? {}) as Record<string, unknown>;
      // TGI v3.3.7 router/src/server.rs `generate_stream_internal` yields
      // ValidationError::PrefillDetailsStream as the stream's only item, and `generate_stream`
      // turns it into an error event (`impl From<InferError> for Event`) under the 200 already
      // sent: no 422, no ModelError.
      if (params.decoder_input_details === true) {
        const refusal = { error: 'Input validation error: `decoder_input_details` == true is not supported when streaming tokens', error_type: 'validation' };
        return {
          status: 200,
          headers: { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-sagemaker-content-type': 'text/event-stream' },
          body: payloadParts(`data:${JSON.stringify(refusal)}\n\n`),
        };
      }
      const out = generate(body.inputs, body, params.max_new_tokens);
      const failAt = failingStream();
      out.tokens.forEach((t, i) => {
        if (failAt !== undefined && i >= failAt) return;
        const last = i === out.tokens.length - 1;
        events.push({
          index: i + 1,
          token: { id: tokenId(t), text: t, logprob: -0.5, special: false },
          generated_text: last ? out.tokens.join('') : null,
          details: last ? { finish_reason: out.finish === 'length' ? 'length' : 'eos_token', generated_tokens: out.tokens.length, seed: null } : null,
        });
      });
      // TGI generate_stream yields the InferError as an event and ends (server.rs, `From<InferError> for Event`).
      if (failAt !== undefined && options.streamError?.ends !== true)
        events.push({
          error: 'Request failed during generation: Server error: CUDA out of memory',
          error_type: options.streamError?.tgiErrorType ?? 'generation',
        });
      return {
        status: 200,
        headers: { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-sagemaker-content-type': 'text/event-stream' },
        body: payloadParts(events.map((e) => `data:${JSON.stringify(e)}\n\n`).join('')),
      };
    }
    const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
    const out = generate(messages.map((m) => String(m.content ?? '')).join('\n\n'), body, body.max_tokens);
    const failAt = failingStream();
    if (failAt !== undefined && options.streamError?.ends === true) {
      for (const t of out.tokens.slice(0, failAt))
        events.push({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: t }, finish_reason: null }] });
      return {
        status: 200,
        headers: { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-sagemaker-content-type': 'text/event-stream' },
        body: payloadParts(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')),
      };
    }
    if (failAt !== undefined) {
      // vLLM's chat stream generator catches the engine error, yields
      // `data: {"error": {message, type, param, code}}` (create_streaming_error_response) and
      // then `data: [DONE]` (serving.py @cc139d8), all under the 200 already sent.
      for (const t of out.tokens.slice(0, failAt))
        events.push({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: t }, finish_reason: null }] });
      events.push({ error: { message: 'Internal server error', type: 'InternalServerError', param: null, code: 500 } });
      const sse = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
      return {
        status: 200,
        headers: { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-sagemaker-content-type': 'text/event-stream' },
        body: payloadParts(sse),
      };
    }
    for (const t of out.tokens)
      events.push({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: t }, finish_reason: null }] });
    events.push({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: {}, finish_reason: out.finish === 'length' ? 'length' : 'stop' }],
    });
    events.push({
      id: 'chatcmpl-fake',
      object: 'chat.completion.chunk',
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: out.tokens.length, total_tokens: 11 + out.tokens.length },
    });
    const sse = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
    return {
      status: 200,
      headers: { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-sagemaker-content-type': 'text/event-stream' },
      body: payloadParts(sse),
    };
  }

  /** The token after which this stream fails, or undefined when it does not. */
  function failingStream(): number | undefined {
    if (streamFailures <= 0 || !options.streamError) return undefined;
    streamFailures -= 1;
    return options.streamError.afterTokens;
  }

  function topAfter(context: string, k: number): { token: string; logprob: number }[] {
    return ['1', '2', '3', '4', '5', ' 1', ' 2', ' 3', ' 4', ' 5', 'Il', '\n']
      .map((token) => ({ token, logprob: logprob(context, token) }))
      .sort((a, b) => b.logprob - a.logprob)
      .slice(0, k);
  }

  function tgiFamily(name: TokenizerName, inputs: string, body: Record<string, unknown>, params: Record<string, unknown>, topN: number) {
    const max = typeof params.max_new_tokens === 'number' ? params.max_new_tokens : 20;
    // Generated tokens decoded in context (`decode_token`), alternatives one id at a time
    // (flash_causal_lm.py `toptoken_texts = self.tokenizer.batch_decode(...)`).
    const family = familyChat(name, inputs, answer(inputs, body), max, topN, logprob, 'text', 'decoded');
    let before = '';
    const prefill = describeTokens(name, encodePrompt(name, inputs), 'decoded').map((t, i) => {
      const lp = i === 0 ? null : logprob(before, t.text);
      before += t.text;
      return { id: t.id, text: t.reported, logprob: lp };
    });
    const token = (id: number, text: string, lp: number) => ({ id, text, logprob: lp, special: false });
    return {
      status: 200,
      body: [
        {
          generated_text: family.positions.map((p) => p.text).join(''),
          ...(params.details === true
            ? {
                details: {
                  finish_reason: family.finish === 'length' ? 'length' : 'eos_token',
                  generated_tokens: family.ids.length,
                  seed: params.seed ?? null,
                  prefill: params.decoder_input_details === true && options.prefillLogprobs !== false ? prefill : [],
                  tokens: family.positions.map((p, i) => token(family.ids[i] ?? 0, p.token, p.logprob)),
                  ...(topN > 0 ? { top_tokens: family.positions.map((p) => p.top.map((t) => token(tokenId(t.token), t.token, t.logprob))) } : {}),
                },
              }
            : {}),
        },
      ],
    };
  }

  function vllmChat(messages: { role?: string; content?: unknown }[], body: Record<string, unknown>) {
    const continueFinal = body.continue_final_message === true;
    const rendered = renderChat(messages, continueFinal);
    if (options.tokenizer && !continueFinal) {
      const max = typeof body.max_tokens === 'number' ? body.max_tokens : 64;
      const k = Number(body.top_logprobs ?? 0);
      const family = familyChat(
        options.tokenizer,
        rendered,
        answer(messages.map((m) => String(m.content ?? '')).join('\n\n'), body),
        max,
        k,
        logprob,
        'decoded',
      );
      return {
        status: 200,
        body: {
          id: 'chatcmpl-fake',
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'fake-vllm',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: family.positions.map((p) => p.text).join('') },
              finish_reason: family.finish,
              ...(body.logprobs === true
                ? {
                    logprobs: {
                      content: family.positions.map((p) => ({
                        token: p.token,
                        logprob: p.logprob,
                        top_logprobs: p.top.map((t) => ({ token: t.token, logprob: t.logprob })),
                      })),
                    },
                  }
                : {}),
            },
          ],
          usage: { prompt_tokens: encodePrompt(options.tokenizer, rendered).length, completion_tokens: family.ids.length, total_tokens: 0 },
          prompt_logprobs: null,
        },
      };
    }
    const out = generate(messages.map((m) => String(m.content ?? '')).join('\n\n'), body, body.max_tokens);
    const scored = scoreText(rendered, logprob);
    const promptLogprobs =
      typeof body.prompt_logprobs === 'number' && !options.noPromptLogprobs
        ? scored.map((t) => (t.logprob === null ? null : { [String(tokenId(t.text))]: { logprob: t.logprob, rank: 1, decoded_token: t.text } }))
        : null;
    return {
      status: 200,
      body: {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'fake-vllm',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: out.tokens.join('') },
            finish_reason: out.finish === 'length' ? 'length' : 'stop',
            ...(body.logprobs === true
              ? {
                  logprobs: {
                    content: out.tokens.map((token) => ({
                      token,
                      logprob: logprob(rendered, token),
                      top_logprobs: topAfter(rendered, Number(body.top_logprobs ?? 0)),
                    })),
                  },
                }
              : {}),
          },
        ],
        usage: { prompt_tokens: scored.length, completion_tokens: out.tokens.length, total_tokens: scored.length + out.tokens.length },
        prompt_logprobs: promptLogprobs,
      },
    };
  }
}

/** SageMaker's answer when the container outlives the 60 s real-time limit. */
function realtimeTimeout() {
  return {
    status: 424,
    headers: { 'x-amzn-errortype': 'ModelError', 'x-amzn-requestid': 'fake' },
    body: {
      ErrorCode: 'INTERNAL_FAILURE_FROM_MODEL',
      Message:
        'Received server error (0) from primary with message "Your invocation timed out while waiting for a response from container primary. Review the latency metrics for each container in Amazon CloudWatch, resolve the issue, and try again.".',
      OriginalStatusCode: 0,
    },
  };
}

/** What SageMaker returns when the container answers an error: ModelError, 424, the container's status inside. */
function modelError(message: string, originalStatus = 400) {
  return {
    status: 424,
    headers: { 'x-amzn-errortype': 'ModelError', 'x-amzn-requestid': 'fake' },
    body: {
      ErrorCode: 'CLIENT_ERROR_FROM_MODEL',
      LogStreamArn: 'arn:aws:logs:us-east-1:000000000000:log-group:/aws/sagemaker/Endpoints/fake',
      Message: `Received client error (${originalStatus}) from primary with message "${message}".`,
      OriginalMessage: message,
      OriginalStatusCode: originalStatus,
    },
  };
}
