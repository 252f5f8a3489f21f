/**
 * A fake Bedrock runtime speaking the Converse REST JSON protocol:
 * `POST /model/{modelId}/converse`, errors as `x-amzn-errortype` + `{"message"}` (restJson1),
 * so the real `@aws-sdk/client-bedrock-runtime` talks to it through an endpoint override.
 */
import { startFakeServer, type FakeServer, type FaultOptions, type RecordedRequest } from './http-server.ts';
import { tokenize } from './tokenize.ts';

export interface BedrockServerOptions extends FaultOptions {
  /** Model ids the fake serves; others get ResourceNotFoundException. Default: any. */
  models?: string[];
  /** The answer text for a prompt (system and message texts joined by blank lines). Default "ok". */
  answer?: (prompt: string, body: Record<string, unknown>, modelId: string) => string;
}

export interface BedrockServer extends FakeServer {
  /** Decoded model ids of the Converse calls received, in order. */
  modelIds(): string[];
}

interface Block {
  text?: string;
}

const CONVERSE = /^\/model\/([^/]+)\/converse$/;

/** Starts the fake on 127.0.0.1 with a free port; use `url` as the endpoint. */
export async function startBedrockServer(options: BedrockServerOptions = {}): Promise<BedrockServer> {
  const answer = options.answer ?? (() => 'ok');
  const error = (status: number, type: string, message: string) => ({
    status,
    headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': 'fake' },
    body: { message },
  });

  const server = await startFakeServer(
    (req: RecordedRequest) => {
      const match = CONVERSE.exec(req.path);
      if (req.method !== 'POST' || !match) return error(404, 'UnknownOperationException', `no route ${req.method} ${req.path}`);
      const modelId = decodeURIComponent(match[1] ?? '');
      if (options.models && !options.models.includes(modelId)) {
        return error(404, 'ResourceNotFoundException', `Model ${modelId} not found or not accessible in this region.`);
      }
      const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
      const messages = Array.isArray(body.messages) ? (body.messages as { role?: string; content?: Block[] }[]) : [];
      if (messages.length === 0) return error(400, 'ValidationException', 'A conversation must start with a user message.');
      const system = Array.isArray(body.system) ? (body.system as Block[]) : [];
      const texts = [...system, ...messages.flatMap((m) => m.content ?? [])].map((b) => b.text ?? '');
      const prompt = texts.join('\n\n');
      const config = (body.inferenceConfig ?? {}) as { maxTokens?: number };
      const all = tokenize(answer(prompt, body, modelId));
      const tokens = config.maxTokens === undefined ? all : all.slice(0, config.maxTokens);
      const inputTokens = tokenize(prompt).length;
      return {
        status: 200,
        headers: { 'x-amzn-requestid': 'fake' },
        body: {
          output: { message: { role: 'assistant', content: [{ text: tokens.join('') }] } },
          stopReason: tokens.length < all.length ? 'max_tokens' : 'end_turn',
          usage: { inputTokens, outputTokens: tokens.length, totalTokens: inputTokens + tokens.length },
          metrics: { latencyMs: 1 },
        },
      };
    },
    error,
    options,
  );

  return {
    ...server,
    modelIds: () =>
      server.requests.map((r) => decodeURIComponent(CONVERSE.exec(r.path)?.[1] ?? '')).filter((id) => id !== ''),
  };
}
