import { describe, expect, it } from 'vitest';
import { checkInvokePayload, invokeResponse, SYNC_PAYLOAD_BYTES, SYNC_RESPONSE_BYTES } from '../../../sim/cloud/limits/payload.ts';

describe('synchronous invocation payload', () => {
  it('takes 6 MB and refuses one byte more as RequestTooLargeException', () => {
    expect(() => checkInvokePayload(SYNC_PAYLOAD_BYTES)).not.toThrow();
    expect(() => checkInvokePayload(SYNC_PAYLOAD_BYTES + 1)).toThrow(expect.objectContaining({ name: 'RequestTooLargeException' }));
  });

  it("returns a response up to 6,291,556 bytes and turns a larger one into Lambda's Function.ResponseSizeTooLarge error", () => {
    const fits = { payload: 'x'.repeat(SYNC_RESPONSE_BYTES) };
    expect(invokeResponse(fits)).toBe(fits);
    const over = invokeResponse({ payload: 'x'.repeat(SYNC_RESPONSE_BYTES + 1) });
    expect(over.functionError).toBe('Unhandled');
    expect(JSON.parse(over.payload)).toEqual({
      errorMessage: 'Response payload size exceeded maximum allowed payload size (6291556 bytes).',
      errorType: 'Function.ResponseSizeTooLarge',
    });
  });
});
