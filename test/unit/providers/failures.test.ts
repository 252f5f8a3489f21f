import { describe, expect, it } from 'vitest';
import { classifySdkError, httpFailure, parseRetryAfter, retryAfterFromHeaders } from '#providers/failures.ts';

const NOW = Date.UTC(2025, 5, 1, 10, 0, 0);

describe('parseRetryAfter', () => {
  it.each([
    ['3', 3000],
    ['0', 0],
    ['1.5', 1500],
    [new Date(NOW + 45_000).toUTCString(), 45_000],
    [new Date(NOW - 45_000).toUTCString(), 0],
  ])('reads %s as %i ms', (value, ms) => {
    expect(parseRetryAfter(value, NOW)).toBe(ms);
  });

  it.each([[undefined], [null], [''], ['soon']])('ignores %s', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

function serviceError(name: string, status: number, extra: Record<string, unknown> = {}): unknown {
  return Object.assign(new Error(`${name} happened`), { name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status }, ...extra });
}

describe('classifySdkError', () => {
  it.each([
    ['ThrottlingException', 429, true],
    ['ThrottlingException', 400, true],
    ['ServiceUnavailableException', 503, true],
    ['ModelNotReadyException', 429, true],
    ['InternalServerException', 500, true],
    ['ValidationException', 400, false],
    ['AccessDeniedException', 403, false],
    ['ResourceNotFoundException', 404, false],
  ])('classifies %s (HTTP %i) as retryable=%s', (name, status, retryable) => {
    expect(classifySdkError(serviceError(name, status), NOW)).toMatchObject({ retryable, status });
  });

  it.each([
    [503, true],
    [429, true],
    [422, false],
  ])("decides SageMaker's ModelError by the container status %i", (original, retryable) => {
    const err = serviceError('ModelError', 424, { OriginalStatusCode: original });
    expect(classifySdkError(err, NOW).retryable).toBe(retryable);
  });

  it('carries the Retry-After of a throttled response', () => {
    const err = serviceError('ThrottlingException', 429, { $response: { statusCode: 429, headers: { 'Retry-After': '7' } } });
    expect(classifySdkError(err, NOW).retryAfterMs).toBe(7000);
  });

  it('treats a connection reset as retryable', () => {
    const err = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(classifySdkError(err, NOW).retryable).toBe(true);
  });

  it('treats a 2xx body that did not deserialise as a retryable malformed response', () => {
    const err = Object.assign(new SyntaxError('Unexpected token'), { $metadata: { httpStatusCode: 200 } });
    expect(classifySdkError(err, NOW)).toMatchObject({ retryable: true, message: expect.stringContaining('malformed') });
  });

  it('does not retry a missing region or missing credentials', () => {
    expect(classifySdkError(new Error('Region is missing'), NOW).retryable).toBe(false);
    expect(classifySdkError(Object.assign(new Error('Could not load credentials'), { name: 'CredentialsProviderError' }), NOW).retryable).toBe(false);
  });
});

describe('retryAfterFromHeaders', () => {
  it('prefers retry-after-ms (OpenAI) over Retry-After', () => {
    const headers: Record<string, string> = { 'retry-after-ms': '1250', 'retry-after': '3' };
    expect(retryAfterFromHeaders((h) => headers[h], 0)).toBe(1250);
    expect(retryAfterFromHeaders((h) => ({ 'retry-after': '3' })[h], 0)).toBe(3000);
    expect(retryAfterFromHeaders(() => undefined, 0)).toBeUndefined();
  });
});

describe('retry classes of stream and container errors', () => {
  it.each(['InternalStreamFailure', 'ModelStreamError'])('retries SageMaker in-stream %s', (name) => {
    expect(classifySdkError(serviceError(name, 500), NOW).retryable).toBe(true);
    expect(classifySdkError(serviceError(name, 400), NOW).retryable).toBe(true);
  });

  const djl = (type: string, message: string) => JSON.stringify({ code: 503, type, message });
  const wrapped = (body: string) =>
    serviceError('ModelError', 424, { OriginalStatusCode: 503, message: `Received server error (503) from primary with message "${body}".` });
  it.each([
    ['djl-serving at capacity (WlmCapacityException)', djl('WlmCapacityException', 'Worker queue capacity exceeded for model: lmi'), true, true],
    ['djl-serving with its workers shut down (WlmShutdownException)', djl('WlmShutdownException', 'All model workers has been shutdown: lmi'), false, false],
    ['djl-serving loading its model (WlmException)', djl('WlmException', 'Model is not ready: lmi'), true, false],
    ['llama.cpp loading its model', JSON.stringify({ error: { code: 503, message: 'Loading model', type: 'unavailable_error' } }), true, false],
    ['vLLM rescaling (elastic EP)', JSON.stringify({ error: 'The model is currently scaling. Please try again later.' }), true, false],
  ])("reads a container's 503 by what it says: %s", (_what, body, retryable, throttled) => {
    expect(classifySdkError(wrapped(body), NOW)).toMatchObject({ retryable, throttled });
    expect(httpFailure(503, body, null, NOW)).toMatchObject({ retryable, throttled });
  });

  it("takes a ModelError wrapping the container's 429 as throttling, so concurrency backs off", () => {
    const failure = classifySdkError(serviceError('ModelError', 424, { OriginalStatusCode: 429 }), NOW);
    expect(failure).toMatchObject({ retryable: true, throttled: true });
    expect(classifySdkError(serviceError('ModelError', 424, { OriginalStatusCode: 500 }), NOW).throttled).toBe(false);
  });
});

describe('point 5 of issue 33: 424, 409 and "Slow Down"', () => {
  it('retries TGI’s 424 (a generation error in the shard, e.g. CUDA OOM) outside streams, direct and behind SageMaker', () => {
    // text-generation-inference v3.3.7 router/src/server.rs: InferError::GenerationError → 424, error_type "generation".
    const body = JSON.stringify({ error: 'Request failed during generation: Server error: CUDA out of memory.', error_type: 'generation' });
    expect(httpFailure(424, body, null, NOW)).toMatchObject({ retryable: true, throttled: false });
    expect(classifySdkError(serviceError('ModelError', 424, { OriginalStatusCode: 424 }), NOW)).toMatchObject({ retryable: true, throttled: false });
  });

  it('retries 409 Conflict, as OpenAI’s and Anthropic’s SDKs do', () => {
    expect(httpFailure(409, 'conflict', null, NOW).retryable).toBe(true);
  });

  it('takes OpenAI’s 503 "Slow Down" as throttling (concurrency backs off), by its message or its code', () => {
    expect(httpFailure(503, 'Slow Down', null, NOW)).toMatchObject({ retryable: true, throttled: true });
    expect(httpFailure(503, 'Please reduce your request rate.', null, NOW, 'slow_down')).toMatchObject({ retryable: true, throttled: true });
    expect(httpFailure(503, 'The server had an error while processing your request.', null, NOW).throttled).toBe(false);
  });
});
