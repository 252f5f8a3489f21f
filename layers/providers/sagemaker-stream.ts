/**
 * Long SageMaker generations through InvokeEndpointWithResponseStream: a real-time
 * InvokeEndpoint must answer within 60 s, a response stream only has to start within it.
 * The container answers server-sent events (TGI: one `token` per event, `generated_text`
 * and `details` on the last; vLLM/OpenAI chat: `delta` chunks, a usage chunk, `[DONE]`)
 * carried in PayloadPart events that may split a line anywhere: the parts are joined
 * before the lines are read.
 */
import type { InvokeEndpointWithResponseStreamCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import type { TokenUsage } from '#core/types.ts';
import { isRetryableStatus, malformed, ProviderCallError } from './failures.ts';
import { estimateTokens } from './tokens.ts';

/** Generations asking for more new tokens than this are streamed (they may outlive 60 s). */
export const STREAM_ABOVE_TOKENS = 1024;

/** The text of a whole response stream. */
export async function invokeStream(
  sdk: { InvokeEndpointWithResponseStreamCommand: typeof InvokeEndpointWithResponseStreamCommand },
  client: SageMakerRuntimeClient,
  target: { endpoint: string; component?: string },
  payload: unknown,
  signal: AbortSignal,
): Promise<string> {
  const res = await client.send(
    new sdk.InvokeEndpointWithResponseStreamCommand({
      EndpointName: target.endpoint,
      ...(target.component !== undefined ? { InferenceComponentName: target.component } : {}),
      ContentType: 'application/json',
      Accept: 'application/json',
      Body: new TextEncoder().encode(JSON.stringify(payload)),
    }),
    { abortSignal: signal },
  );
  if (!res.Body) throw malformed('response stream without a body');
  const decoder = new TextDecoder();
  let text = '';
  for await (const event of res.Body) {
    if (event.PayloadPart?.Bytes) text += decoder.decode(event.PayloadPart.Bytes, { stream: true });
  }
  return text + decoder.decode();
}

/** The JSON payloads of the `data:` lines of a server-sent-events text, `[DONE]` left out. */
export function sseData(text: string): unknown[] {
  const out: unknown[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice('data:'.length).trim();
    if (data === '' || data === '[DONE]') continue;
    try {
      out.push(JSON.parse(data) as unknown);
    } catch (err) {
      throw malformed(`stream event is not JSON: ${data.slice(0, 120)}`, err);
    }
  }
  return out;
}

/**
 * An error the container sent inside a 200 stream, as a failure; undefined when the event is
 * no error. TGI (router/src/server.rs `generate_stream`, `impl From<InferError> for Event`,
 * v3.3.7) sends `{"error": "…", "error_type": "generation" | "overloaded" | "validation" |
 * "incomplete_generation_stream" | …}` and stops; its OpenAI routes send
 * `{"error": {"message", "http_status_code"}}` (infer/mod.rs `into_openai_event`); vLLM
 * (serving.py stream generators, `create_streaming_error_response` @cc139d8) sends
 * `{"error": {"message", "type", "code"}}` and then `[DONE]`. The text so far is no answer.
 */
export function streamError(event: unknown): ProviderCallError | undefined {
  if (typeof event !== 'object' || event === null || !('error' in event)) return undefined;
  const { error, error_type: errorType } = event as { error: unknown; error_type?: unknown };
  if (error === null || error === undefined) return undefined;
  if (typeof error === 'string') {
    const type = typeof errorType === 'string' ? errorType : 'unknown';
    const permanent = ['validation', 'template_error', 'missing_template_variable', 'tool_error'].includes(type);
    return new ProviderCallError(`the stream ended with an error (${type}): ${error.slice(0, 300)}`, {
      retryable: !permanent,
      throttled: type === 'overloaded',
    });
  }
  const e = error as { message?: unknown; code?: unknown; http_status_code?: unknown; type?: unknown };
  const message = typeof e.message === 'string' ? e.message : JSON.stringify(error);
  if (typeof e.http_status_code === 'number') {
    // TGI's OpenAI routes send 422 for every InferError (infer/mod.rs `into_openai_event`,
    // v3.3.7), a CUDA out-of-memory or an overloaded queue included, so the status tells
    // nothing; the message is the InferError's Display (`Input validation error: …`,
    // `Template error: …`, `Model is overloaded`, `Request failed during generation: …`).
    const permanent = /^(Input validation error|Template error|Missing template|Tool error)/u.test(message);
    return new ProviderCallError(`the stream ended with an error: ${message.slice(0, 300)}`, {
      retryable: !permanent,
      throttled: /^Model is overloaded/u.test(message),
    });
  }
  const status = typeof e.code === 'number' ? e.code : undefined;
  return new ProviderCallError(`the stream ended with an error${status !== undefined ? ` (${status})` : ''}: ${message.slice(0, 300)}`, {
    // Without a status the server failed mid-generation: another attempt may succeed.
    retryable: status === undefined || isRetryableStatus(status),
    ...(status !== undefined ? { status } : {}),
  });
}

/** A stream that ended before its final event: no answer (the text so far is cut), retried. */
function truncatedStream(what: string): ProviderCallError {
  return new ProviderCallError(`truncated response stream: ${what} (the connection was closed mid-answer)`, { retryable: true });
}

function throwStreamErrors(events: readonly unknown[]): void {
  for (const event of events) {
    const failure = streamError(event);
    if (failure) throw failure;
  }
}

/** A streamed generation, read. */
export interface StreamedGeneration {
  text: string;
  usage: TokenUsage;
  finishReason?: string;
}

interface TgiEvent {
  token?: { text?: string; special?: boolean };
  generated_text?: string | null;
  details?: { finish_reason?: string; generated_tokens?: number } | null;
}

/** TGI's stream: the last event's `generated_text` (or the tokens joined), its details. */
export function readTgiStream(text: string, prompt: string): StreamedGeneration {
  const events = sseData(text) as TgiEvent[];
  throwStreamErrors(events);
  if (events.length === 0) throw malformed('TGI stream carried no event');
  const last = events[events.length - 1] as TgiEvent;
  // TGI's last event carries `generated_text` and `details` (router/src/server.rs
  // `generate_stream_internal`, v3.3.7: InferStreamResponse::End); a stream without it was cut.
  if (typeof last.generated_text !== 'string' && !last.details) throw truncatedStream(`TGI stream ended after ${events.length} tokens without its final event`);
  const joined = events.map((e) => (e.token?.special ? '' : (e.token?.text ?? ''))).join('');
  const generated = typeof last.generated_text === 'string' ? last.generated_text : joined;
  const finishReason = last.details?.finish_reason;
  return {
    text: generated,
    usage: { promptTokens: estimateTokens(prompt), completionTokens: last.details?.generated_tokens ?? events.filter((e) => e.token).length },
    ...(finishReason ? { finishReason } : {}),
  };
}

interface ChatChunk {
  choices?: { delta?: { content?: string | null }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/** An OpenAI-style chat stream: the deltas joined, the finish reason, the usage chunk. */
export function readChatStream(text: string, prompt: string): StreamedGeneration {
  const chunks = sseData(text) as ChatChunk[];
  throwStreamErrors(chunks);
  let content = '';
  let finishReason: string | undefined;
  let usage: ChatChunk['usage'];
  for (const chunk of chunks) {
    for (const choice of chunk.choices ?? []) {
      content += choice.delta?.content ?? '';
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
    if (chunk.usage) usage = chunk.usage;
  }
  // Every OpenAI-style stream ends its choice with a finish_reason (then vLLM sends `[DONE]`,
  // serving.py chat_completion_stream_generator @cc139d8); a stream without one was cut.
  if (finishReason === undefined) throw truncatedStream(`chat stream ended after ${chunks.length} chunks without a finish_reason`);
  return {
    text: content,
    usage: { promptTokens: usage?.prompt_tokens ?? estimateTokens(prompt), completionTokens: usage?.completion_tokens ?? estimateTokens(content) },
    ...(finishReason ? { finishReason } : {}),
  };
}
