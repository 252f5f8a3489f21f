import { describe, expect, it } from 'vitest';
import { checkInvokePayload, SYNC_PAYLOAD_BYTES } from '../../../bench/cloud-sim/limits/payload.ts';

describe('synchronous invocation payload', () => {
  it('takes 6 MB and refuses one byte more as RequestTooLargeException', () => {
    expect(() => checkInvokePayload(SYNC_PAYLOAD_BYTES)).not.toThrow();
    expect(() => checkInvokePayload(SYNC_PAYLOAD_BYTES + 1)).toThrow(expect.objectContaining({ name: 'RequestTooLargeException' }));
  });
});
