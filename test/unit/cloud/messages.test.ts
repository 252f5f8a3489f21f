// Queue messages cross processes and deployments: every message polyeval sends carries
// schema_version 1, one sent before versions existed (in flight during a deploy) reads as
// version 1, and one from a newer polyeval is refused by name, so the Lambda chain reports it
// as a failed record (redelivered, then dead-lettered) and never hands it to the stage.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { HarnessError } from '#core/errors.ts';
import { SCHEMA_VERSION } from '#core/run/documents.ts';
import { FsBlobStore } from '#local/index.ts';
import { messageKey, resolveGenerated, toMessage } from '#app/cloud/large-messages.ts';
import { parseAggregateMessage, parseGeneratedItem, parsePlanMessage, parseWorkItem, versioned } from '#app/cloud/messages.ts';
import { createObservability } from '../../../functions/shared/observability.ts';
import { sqsHandler } from '../../../functions/shared/sqs-handler.ts';

process.env.POWERTOOLS_TRACE_ENABLED = 'false';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';

const item = { runId: 'r1', taskId: 'ro/sum', sample: 0, language: 'python' };
const generated = { item, raw: 'print(1)', answer: 'print(1)', usage: null, latencyMs: 5, attempts: 1 };

// Bodies as a deployment before schema_version sent them.
const unversioned: [string, (body: unknown) => unknown, Record<string, unknown>][] = [
  ['plan', parsePlanMessage, { runId: 'r1', offset: 100 }],
  ['aggregate', parseAggregateMessage, { runId: 'r1', part: 2 }],
  ['work item', parseWorkItem, { ...item, part: { index: 0, slot: 1, size: 2 } }],
  ['generated item', parseGeneratedItem, generated],
  ['generated item pointer', parseGeneratedItem, { pointer: { key: 'runs/r1/messages/ro_sum/0.json', bytes: 300_000 }, item }],
];

describe('queue message versions', () => {
  it.each(unversioned)('reads a %s message sent before versions existed as version 1, every field kept', (_what, parse, body) => {
    expect(parse(body)).toEqual(body);
  });

  it.each(unversioned)('reads the %s message this polyeval sends', (_what, parse, body) => {
    const sent = JSON.parse(JSON.stringify(versioned(body))) as unknown;

    expect(sent).toMatchObject({ schema_version: SCHEMA_VERSION });
    expect(parse(sent)).toEqual({ ...body, schema_version: SCHEMA_VERSION });
  });

  it.each(unversioned)('refuses a %s message from a newer polyeval, naming its schema_version', (what, parse, body) => {
    const read = (): unknown => parse({ ...body, schema_version: 2 });

    expect(read).toThrow(HarnessError);
    expect(read).toThrow(`${what} message, field "schema_version": schema_version 2 is not one this polyeval reads (it reads 1)`);
  });

  it('names the field of a message that does not match its schema', () => {
    expect(() => parseAggregateMessage({ runId: 'r1', part: -1 })).toThrow(/aggregate message, field "part"/);
  });
});

describe('generated items too large for SQS', () => {
  const store = (): FsBlobStore => new FsBlobStore(mkdtempSync(join(tmpdir(), 'messages-')));

  it('sends small items inline and large ones as a pointer, both versioned, the stored item too', async () => {
    const blobs = store();
    const inline = await toMessage(blobs, generated);
    const large = await toMessage(blobs, { ...generated, answer: 'x'.repeat(2_000) }, 1_000);

    expect(inline).toMatchObject({ schema_version: SCHEMA_VERSION, answer: 'print(1)' });
    expect(large).toMatchObject({ schema_version: SCHEMA_VERSION, pointer: { key: messageKey('r1', 'ro/sum', 0) } });
    expect(JSON.parse((await blobs.getText(messageKey('r1', 'ro/sum', 0))) ?? '{}')).toMatchObject({ schema_version: SCHEMA_VERSION });
    expect((await resolveGenerated(blobs, parseGeneratedItem(JSON.parse(JSON.stringify(large))))).answer).toBe('x'.repeat(2_000));
  });

  it('reads a stored item written before versions existed, and refuses a newer one by name', async () => {
    const blobs = store();
    const key = messageKey('r1', 'ro/sum', 0);
    const pointer = parseGeneratedItem({ pointer: { key, bytes: 10 }, item });

    await blobs.put(key, JSON.stringify(generated), 'application/json');
    expect((await resolveGenerated(blobs, pointer)).answer).toBe('print(1)');

    await blobs.put(key, JSON.stringify({ ...generated, schema_version: 2 }), 'application/json');
    await expect(resolveGenerated(blobs, pointer)).rejects.toThrow(/field "schema_version": schema_version 2 is not one this polyeval reads/);
  });
});

function record(messageId: string, body: string): SQSRecord {
  return {
    messageId,
    receiptHandle: `h-${messageId}`,
    body,
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'x', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:eu-west-1:000000000000:plan',
    awsRegion: 'eu-west-1',
  };
}

describe('the SQS handler chain', () => {
  it('fails only the record from a newer polyeval (redelivered, then dead-lettered) and handles the others', async () => {
    const handled: unknown[] = [];
    const handler = sqsHandler({
      obs: createObservability('plan'),
      what: 'plan',
      parse: parsePlanMessage,
      handle: async (message) => {
        handled.push(message);
        return { status: 'enqueued' };
      },
    });
    const event: SQSEvent = {
      Records: [
        record('old', JSON.stringify({ runId: 'r1', offset: 0 })),
        record('newer', JSON.stringify({ runId: 'r2', offset: 0, schema_version: 2 })),
        record('current', JSON.stringify(versioned({ runId: 'r3', offset: 0 }))),
      ],
    };

    const response = await handler(event, { functionName: 'plan', awsRequestId: 'req' } as Context);

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'newer' }]);
    expect(handled).toEqual([
      { runId: 'r1', offset: 0 },
      { runId: 'r3', offset: 0, schema_version: 1 },
    ]);
  });
});
