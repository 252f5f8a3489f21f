// Errors a container sends inside a 200 stream: which are worth another attempt. The shapes are
// the servers' own: TGI's OpenAI routes (infer/mod.rs `into_openai_event`, v3.3.7) put 422 on
// every error, so only the message (the InferError's Display) tells a bad request from a
// failure mid-generation; vLLM (serving.py `create_streaming_error_response`) sends its code.
import { describe, expect, it } from 'vitest';
import { streamError } from '#providers/sagemaker-stream.ts';

const tgiOpenAi = (message: string) => ({ error: { message, http_status_code: 422 } });

describe('an error event inside a stream', () => {
  it.each([
    ['Request failed during generation: Server error: CUDA out of memory', true, false],
    ['Model is overloaded', true, true],
    ['Input validation error: `top_p` must be > 0.0 and < 1.0', false, false],
    ['Template error: unknown filter', false, false],
  ])('from TGI\'s OpenAI routes (422 whatever happened): "%s" is retryable=%s', (message, retryable, throttled) => {
    const failure = streamError(tgiOpenAi(message));
    expect(failure?.retryable).toBe(retryable);
    expect(failure?.throttled ?? false).toBe(throttled);
  });

  it('from vLLM keeps its status: a 400 is final, a 500 is retried', () => {
    expect(streamError({ error: { message: 'bad', type: 'BadRequestError', code: 400 } })?.retryable).toBe(false);
    expect(streamError({ error: { message: 'engine dead', type: 'InternalServerError', code: 500 } })?.retryable).toBe(true);
  });
});
