/**
 * The AWS event-stream binary framing (application/vnd.amazon.eventstream), as SageMaker's
 * InvokeEndpointWithResponseStream sends it: each message is a prelude (total length,
 * headers length, CRC32 of both), string headers, the payload and a CRC32 of everything
 * before it. Enough of the format for `PayloadPart` events, which the real SDK decodes.
 */
import { crc32 } from 'node:zlib';

function header(name: string, value: string): Buffer {
  const n = Buffer.from(name, 'utf8');
  const v = Buffer.from(value, 'utf8');
  const out = Buffer.alloc(1 + n.length + 1 + 2 + v.length);
  out.writeUInt8(n.length, 0);
  n.copy(out, 1);
  out.writeUInt8(7, 1 + n.length); // 7 = string
  out.writeUInt16BE(v.length, 2 + n.length);
  v.copy(out, 4 + n.length);
  return out;
}

/** One event message with `:message-type: event` and the given event type. */
export function eventMessage(eventType: string, payload: Uint8Array): Buffer {
  const headers = Buffer.concat([header(':event-type', eventType), header(':content-type', 'application/octet-stream'), header(':message-type', 'event')]);
  const total = 12 + headers.length + payload.length + 4;
  const out = Buffer.alloc(total);
  out.writeUInt32BE(total, 0);
  out.writeUInt32BE(headers.length, 4);
  out.writeUInt32BE(crc32(out.subarray(0, 8)), 8);
  headers.copy(out, 12);
  Buffer.from(payload).copy(out, 12 + headers.length);
  out.writeUInt32BE(crc32(out.subarray(0, total - 4)), total - 4);
  return out;
}

/** A response stream carrying `text` in PayloadPart events of at most `partBytes` bytes (lines split across parts, as SageMaker does). */
export function payloadParts(text: string, partBytes = 7): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  const messages: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += partBytes) messages.push(eventMessage('PayloadPart', bytes.subarray(i, i + partBytes)));
  return Buffer.concat(messages);
}
