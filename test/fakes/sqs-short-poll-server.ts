/**
 * A one-queue SQS endpoint on loopback that behaves as the ReceiveMessage reference says a
 * short poll may: "Short poll is the default behavior where a weighted random set of machines is
 * sampled on a ReceiveMessage call ... If the number of messages in the queue is extremely
 * small, you might not receive any messages in a particular ReceiveMessage response. If this
 * happens, repeat the request" (Amazon SQS API Reference, ReceiveMessage), while long polling
 * "queries all of the servers" (SQS Developer Guide, "Amazon SQS short and long polling"). Here
 * the first `emptyShortPolls` short polls (WaitTimeSeconds 0 or absent) sample no message; a
 * long poll returns what is visible, or nothing after a shortened wait (200 ms, not the asked
 * seconds, to keep tests fast).
 *
 * The wire protocol is the one @aws-sdk/client-sqs 3.1175.0 speaks (dist-cjs/index.js:
 * `AwsJson1_0Protocol`, target `AmazonSQS.<Operation>`, JSON bodies), and the SDK checks each
 * body's MD5 (`MD5OfBody`, `MD5OfMessageBody`: @aws-sdk/middleware-sdk-sqs), so the fake sends
 * them. Operations: ReceiveMessage, SendMessage, DeleteMessage, ChangeMessageVisibility,
 * GetQueueAttributes (ApproximateNumberOfMessages, …NotVisible, …Delayed).
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Stored {
  id: string;
  body: string;
  visibleAt: number;
  receipt?: string;
}

export interface SqsShortPollServer {
  /** The endpoint for the SDK client. */
  endpoint: string;
  /** The queue's URL (the only queue; any QueueUrl is taken as it). */
  queueUrl: string;
  /** The operations received, with their WaitTimeSeconds for ReceiveMessage. */
  calls: { op: string; wait?: number }[];
  send(body: string): void;
  bodies(): string[];
  close(): Promise<void>;
}

const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

export async function startSqsShortPollServer(options: { emptyShortPolls?: number } = {}): Promise<SqsShortPollServer> {
  const stored: Stored[] = [];
  const calls: SqsShortPollServer['calls'] = [];
  let emptyShortPolls = options.emptyShortPolls ?? 1;
  let seq = 0;
  const visible = (now: number) => stored.filter((m) => m.visibleAt <= now);
  const handle = async (op: string, input: Record<string, unknown>): Promise<unknown> => {
    const now = Date.now();
    switch (op) {
      case 'ReceiveMessage': {
        const wait = Number(input.WaitTimeSeconds ?? 0);
        calls.push({ op, wait });
        if (wait === 0 && emptyShortPolls > 0) {
          emptyShortPolls -= 1;
          return {};
        }
        if (wait > 0 && visible(now).length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
        const out = visible(Date.now()).slice(0, Number(input.MaxNumberOfMessages ?? 1));
        for (const m of out) {
          m.receipt = `r-${m.id}-${++seq}`;
          m.visibleAt = Date.now() + 1000 * Number(input.VisibilityTimeout ?? 30);
        }
        return out.length === 0 ? {} : { Messages: out.map((m) => ({ MessageId: m.id, ReceiptHandle: m.receipt, MD5OfBody: md5(m.body), Body: m.body })) };
      }
      case 'SendMessage': {
        calls.push({ op });
        const body = String(input.MessageBody);
        const id = `m-${++seq}`;
        stored.push({ id, body, visibleAt: now });
        return { MessageId: id, MD5OfMessageBody: md5(body) };
      }
      case 'DeleteMessage': {
        calls.push({ op });
        const at = stored.findIndex((m) => m.receipt === input.ReceiptHandle);
        if (at >= 0) stored.splice(at, 1);
        return {};
      }
      case 'ChangeMessageVisibility': {
        calls.push({ op });
        const m = stored.find((s) => s.receipt === input.ReceiptHandle);
        if (m) m.visibleAt = now + 1000 * Number(input.VisibilityTimeout ?? 0);
        return {};
      }
      case 'GetQueueAttributes': {
        calls.push({ op });
        const shown = visible(now).length;
        return {
          Attributes: {
            ApproximateNumberOfMessages: String(shown),
            ApproximateNumberOfMessagesNotVisible: String(stored.length - shown),
            ApproximateNumberOfMessagesDelayed: '0',
          },
        };
      }
      default:
        throw new Error(`unsupported operation ${op}`);
    }
  };
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (text += chunk));
    req.on('end', () => {
      const op = String(req.headers['x-amz-target'] ?? '').replace(/^AmazonSQS\./, '');
      handle(op, text === '' ? {} : (JSON.parse(text) as Record<string, unknown>))
        .then((out) => {
          res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
          res.end(JSON.stringify(out));
        })
        .catch((error: unknown) => {
          res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
          res.end(JSON.stringify({ __type: 'com.amazonaws.sqs#InvalidAction', message: (error as Error).message }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint,
    queueUrl: `${endpoint}/123456789012/polyeval-generate-dlq`,
    calls,
    send: (body) => void stored.push({ id: `m-${++seq}`, body, visibleAt: Date.now() }),
    bodies: () => stored.map((m) => m.body),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
