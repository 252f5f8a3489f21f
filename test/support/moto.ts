/**
 * Starts a real `moto_server` (Python moto) on a free loopback port for integration tests,
 * and sets fake AWS credentials so no SDK client ever looks for real ones.
 *
 * @example
 * let moto: Moto;
 * beforeAll(async () => { moto = await startMoto(); });
 * afterAll(async () => { await moto.stop(); });
 * const s3 = new S3Client(awsClientConfig(moto.endpoint));
 * await createBucket(s3, 'polyeval');
 * const queue = await createQueueWithDlq(new SQSClient(awsClientConfig(moto.endpoint)), 'generate');
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ledgerTableDefinition } from '#aws/dynamo-ledger-schema.ts';

export interface Moto {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  /** Kills the server (its whole process group) and waits for it to exit. */
  stop(): Promise<void>;
}

/** The fake credentials and region every test client uses. */
export const FAKE_AWS = { accessKeyId: 'test', secretAccessKey: 'test', region: 'us-east-1' } as const;

/** Sets AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_REGION to the fake values. */
export function useFakeAwsCredentials(): void {
  process.env.AWS_ACCESS_KEY_ID = FAKE_AWS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = FAKE_AWS.secretAccessKey;
  process.env.AWS_REGION = FAKE_AWS.region;
  process.env.AWS_DEFAULT_REGION = FAKE_AWS.region;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
}

/**
 * Options for any AWS SDK v3 client pointed at moto: endpoint, region, static fake
 * credentials, and path-style addressing (S3 virtual-host style cannot resolve on 127.0.0.1).
 */
export function awsClientConfig(endpoint: string): {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
  maxAttempts: number;
} {
  return {
    endpoint,
    region: FAKE_AWS.region,
    credentials: { accessKeyId: FAKE_AWS.accessKeyId, secretAccessKey: FAKE_AWS.secretAccessKey },
    forcePathStyle: true,
    maxAttempts: 3,
  };
}

/**
 * moto's own server app, served one request at a time. moto_server is threaded, and moto's
 * TransactWriteItems rolls a failed transaction back by restoring a whole-table snapshot
 * taken before it started — wiping a concurrent transaction that committed meanwhile. Real
 * DynamoDB is atomic per transaction; a serialized server gives tests that guarantee.
 */
const SERIALIZED_MOTO = [
  'import os, sys',
  'from werkzeug.serving import make_server',
  'from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app',
  'server = make_server(sys.argv[1], 0, DomainDispatcherApplication(create_backend_app), threaded=False)',
  'os.environ.setdefault("MOTO_PORT", str(server.port))',
  'print(" * Running on http://%s:%d" % (sys.argv[1], server.port), file=sys.stderr, flush=True)',
  'server.serve_forever()',
].join('\n');

/**
 * Starts `moto_server` on a free 127.0.0.1 port and resolves once it answers HTTP.
 * `serialized: true` handles one request at a time (see SERIALIZED_MOTO): use it to test
 * concurrent DynamoDB transactions; avoid it with SQS long polling, which would block it.
 */
export async function startMoto(options: { startTimeoutMs?: number; serialized?: boolean } = {}): Promise<Moto> {
  useFakeAwsCredentials();
  // Port 0: the server binds a port the kernel gives it and prints it ("Running on
  // http://127.0.0.1:<port>"). Choosing a free port first and starting the server on it
  // raced with other test files doing the same: the loser answered through the winner's
  // server and two files shared queues and tables.
  const [command, args] = options.serialized ? ['python3', ['-c', SERIALIZED_MOTO, '127.0.0.1']] : ['moto_server', ['-H', '127.0.0.1', '-p', '0']];
  const child = spawn(command, args, {
    // Own process group, so stop() also ends any interpreter the pyenv shim spawned.
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' },
  });
  let stderr = '';
  /** The first output, where the bound address is printed (request logs follow it). */
  let head = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
    if (head.length < 4000) head += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      killGroup(child, 'SIGTERM');
      const killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
      await exited;
      clearTimeout(killTimer);
    }
  };
  let endpoint = '';
  try {
    const timeoutMs = options.startTimeoutMs ?? 60_000;
    const started = Date.now();
    endpoint = await boundEndpoint(child, timeoutMs, () => head);
    await waitUntilAnswering(endpoint, child, Math.max(1_000, timeoutMs - (Date.now() - started)), () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, stop };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

/** The endpoint the server printed once bound (werkzeug's "Running on http://127.0.0.1:<port>"). */
async function boundEndpoint(child: ChildProcess, timeoutMs: number, stderr: () => string): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const port = /Running on http:\/\/127\.0\.0\.1:(\d+)/u.exec(stderr())?.[1];
    if (port !== undefined) return `http://127.0.0.1:${port}`;
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`moto_server exited early (${child.exitCode ?? child.signalCode}): ${stderr()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`moto_server printed no address within ${timeoutMs} ms: ${stderr()}`);
}

async function waitUntilAnswering(endpoint: string, child: ChildProcess, timeoutMs: number, stderr: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`moto_server exited early (${child.exitCode ?? child.signalCode}): ${stderr()}`);
    }
    try {
      const response = await fetch(`${endpoint}/moto-api/data.json`);
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`moto_server did not answer on ${endpoint} within ${timeoutMs} ms: ${stderr()}`);
}

/** POSTs JSON to a moto control endpoint (`/moto-api/...`), failing on a non-2xx answer. */
export async function motoApi(endpoint: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${endpoint}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`moto ${path} answered ${response.status}: ${text}`);
}

/** Creates a bucket (idempotent on moto). */
export async function createBucket(s3: S3Client, bucket: string): Promise<void> {
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
}

/** A queue with its DLQ, as infra deploys them: after `maxReceiveCount` deliveries a message moves to the DLQ. */
export interface QueueWithDlq {
  url: string;
  arn: string;
  dlqUrl: string;
  dlqArn: string;
}

/** Creates `<name>-dlq` and `<name>` with a redrive policy to it. */
export async function createQueueWithDlq(
  sqs: SQSClient,
  name: string,
  options: { maxReceiveCount?: number; visibilityTimeoutSec?: number } = {},
): Promise<QueueWithDlq> {
  const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl ?? '';
  const dlqArn = await queueArn(sqs, dlqUrl);
  const url =
    (
      await sqs.send(
        new CreateQueueCommand({
          QueueName: name,
          Attributes: {
            VisibilityTimeout: String(options.visibilityTimeoutSec ?? 30),
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: options.maxReceiveCount ?? 3 }),
          },
        }),
      )
    ).QueueUrl ?? '';
  return { url, arn: await queueArn(sqs, url), dlqUrl, dlqArn };
}

async function queueArn(sqs: SQSClient, url: string): Promise<string> {
  const out = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return out.Attributes?.QueueArn ?? '';
}

/** Creates the run ledger table exactly as DynamoRunLedger expects it (layers/aws/dynamo-ledger-schema.ts). */
export async function createLedgerTable(dynamo: DynamoDBClient, tableName: string): Promise<void> {
  await dynamo.send(new CreateTableCommand(ledgerTableDefinition(tableName)));
}
