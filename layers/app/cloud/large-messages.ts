/**
 * Generated items too large for an SQS message (a model that writes 300 KiB of code): the
 * item is stored under `runs/<run>/messages/…` and the message carries its key. The key is
 * the item's, so a redelivered generate overwrites the same object; the object is needed only
 * until the item is recorded, so the lifecycle rules may expire it with the items.
 */
import { HarnessError } from '#core/errors.ts';
import type { BlobStore } from '#core/ports.ts';
import type { GeneratedItem } from '#core/run/index.ts';
import { safeSegment } from '#core/run/index.ts';
import { isPointer, MAX_INLINE_BYTES, parseGeneratedItem, parseJsonBody, versioned, type GeneratedMessage } from './messages.ts';

export const messageKey = (runId: string, taskId: string, sample: number): string => `runs/${runId}/messages/${safeSegment(taskId)}/${sample}.json`;

/** The message to send for a generated item: the item itself, or a pointer once it is over `limit` bytes. */
export async function toMessage(store: BlobStore, generated: GeneratedItem, limit = MAX_INLINE_BYTES): Promise<GeneratedMessage> {
  const message = versioned(generated);
  const text = JSON.stringify(message);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= limit) return message;
  const { item } = generated;
  const key = messageKey(item.runId, item.taskId, item.sample);
  await store.put(key, text, 'application/json');
  return versioned({ pointer: { key, bytes }, item });
}

/** The generated item a message stands for (reading the stored object of a pointer). */
export async function resolveGenerated(store: BlobStore, message: GeneratedMessage): Promise<GeneratedItem> {
  if (!isPointer(message)) return message;
  const text = await store.getText(message.pointer.key);
  if (text === undefined) throw new HarnessError(`generated item ${message.pointer.key} is not in the store`);
  const generated = parseGeneratedItem(parseJsonBody(text, `stored generated item ${message.pointer.key}`));
  if (isPointer(generated)) throw new HarnessError(`generated item ${message.pointer.key} is itself a pointer`);
  return generated;
}
