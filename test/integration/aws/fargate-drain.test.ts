// The Fargate consumer's two scale-in safeguards: ECS task scale-in protection while items
// run (against a stand-in for the ECS container agent endpoint that answers the way
// amazon-ecs-agent's ecs-agent/tmds/handlers/taskprotection/v1 does), and the graceful
// drain on SIGTERM (SqsWorkQueue.stop() on moto_server's SQS).
import { createServer, type Server } from 'node:http';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqsWorkQueue } from '#aws/index.ts';
import { TaskProtection } from '../../../functions/execute/task-protection.ts';
import { awsClientConfig, createQueueWithDlq, startMoto, type Moto } from '../../support/moto.ts';

const TASK_ARN = 'arn:aws:ecs:us-east-1:123456789012:task/polyeval/0123456789abcdef';

/** The agent's endpoint: PUT validates ProtectionEnabled, answers {"protection": …} or {"error": …}. */
function fakeAgent(state: { puts: { ProtectionEnabled?: unknown; ExpiresInMinutes?: unknown }[] }): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      if (req.url !== '/task-protection/v1/state' || req.method !== 'PUT') {
        res.statusCode = 404;
        res.end('{}');
        return;
      }
      const parsed = JSON.parse(body || '{}') as { ProtectionEnabled?: unknown; ExpiresInMinutes?: unknown };
      if (typeof parsed.ProtectionEnabled !== 'boolean') {
        res.statusCode = 400;
        res.end(JSON.stringify({ error: { Arn: TASK_ARN, Code: 'InvalidRequest', Message: 'Invalid request: does not contain ProtectionEnabled field' } }));
        return;
      }
      state.puts.push(parsed);
      res.end(
        JSON.stringify({
          protection: {
            ExpirationDate: parsed.ProtectionEnabled ? '2026-12-01T00:00:00Z' : null,
            ProtectionEnabled: parsed.ProtectionEnabled,
            TaskArn: TASK_ARN,
          },
        }),
      );
    });
  });
}

describe('task scale-in protection', () => {
  const state = { puts: [] as { ProtectionEnabled?: unknown; ExpiresInMinutes?: unknown }[] };
  let agent: Server;
  let uri = '';
  beforeAll(async () => {
    agent = fakeAgent(state);
    await new Promise<void>((r) => agent.listen(0, '127.0.0.1', r));
    uri = `http://127.0.0.1:${(agent.address() as { port: number }).port}`;
  });
  afterAll(() => agent?.close());

  it('protects the task while any item runs and releases it when the last one ends', async () => {
    const protection = new TaskProtection({ agentUri: uri, expiresInMinutes: 45 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = protection.around(() => gate);
    const second = protection.around(async () => {
      expect(state.puts).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 45 }]);
    });
    await second;
    expect(state.puts).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 45 }]); // still busy: no release
    release();
    await first;
    expect(state.puts).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 45 }, { ProtectionEnabled: false }]);
  });

  it('does nothing outside ECS and survives an unreachable agent', async () => {
    await expect(new TaskProtection({ agentUri: undefined }).around(async () => 7)).resolves.toBe(7);
    const logged: string[] = [];
    const unreachable = new TaskProtection({ agentUri: 'http://127.0.0.1:9', log: (m) => logged.push(m) });
    await expect(unreachable.around(async () => 'done')).resolves.toBe('done');
    expect(logged).toContain('task scale-in protection endpoint unreachable');
  });
});

describe('graceful drain', () => {
  let moto: Moto;
  let sqs: SQSClient;
  beforeAll(async () => {
    moto = await startMoto();
    sqs = new SQSClient(awsClientConfig(moto.endpoint));
  });
  afterAll(async () => {
    sqs?.destroy();
    await moto?.stop();
  });

  it('finishes the item in flight, takes no new one, and leaves the rest visible to other tasks', async () => {
    const { url } = await createQueueWithDlq(sqs, 'drain', { maxReceiveCount: 5 });
    const queue = new SqsWorkQueue<{ n: number }>({ client: sqs, queueUrl: url, waitTimeSec: 1, visibilityTimeoutSec: 300 });
    await queue.send([1, 2, 3].map((n) => ({ id: `r/t/${n}`, body: { n } })));
    const handled: number[] = [];
    await queue.consume(
      async (message) => {
        queue.stop(); // SIGTERM arrives while this item runs
        await new Promise((r) => setTimeout(r, 300));
        handled.push(message.body.n);
      },
      { concurrency: 1 },
    );
    expect(handled).toHaveLength(1);
    const rest = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    expect((rest.Messages ?? []).map((m) => (JSON.parse(m.Body ?? '{}') as { n: number }).n).sort()).toEqual([1, 2, 3].filter((n) => !handled.includes(n)));
  }, 60_000);
});
