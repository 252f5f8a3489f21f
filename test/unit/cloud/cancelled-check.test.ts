// Every generate and execute message first asks whether its run was cancelled: one read of the
// run's status (RunLedger.runStatus), never the run's full summary (getRun: the run, cost and
// 16 count rows in DynamoDB).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunLedger } from '#core/ports.ts';
import { executeWork, generateWork } from '#app/cloud/stages.ts';
import type { RunContextCache } from '#app/cloud/context.ts';
import type { GeneratedMessage } from '#app/cloud/messages.ts';
import { FileRunLedger } from '#local/index.ts';

async function cancelledRun(): Promise<{ ledger: RunLedger; getRuns: () => number }> {
  const inner = new FileRunLedger(mkdtempSync(join(tmpdir(), 'cancelled-')));
  await inner.createRun({ runId: 'r1', benchmark: 'rocode', model: 'm', status: 'running', items: 1, createdAt: '2026-01-01T00:00:00.000Z' });
  await inner.setStatus('r1', 'cancelled', 'by the user');
  let getRuns = 0;
  const ledger = new Proxy(inner, {
    get(target, name, receiver) {
      if (name === 'getRun') getRuns += 1;
      const value: unknown = Reflect.get(target, name, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { ledger, getRuns: () => getRuns };
}

const unused = new Proxy({}, { get: () => () => Promise.reject(new Error('a cancelled run needs nothing else')) });
const item = { schema_version: 1 as const, runId: 'r1', taskId: 't1', sample: 0 };

describe('the cancelled check of generate and execute', () => {
  it('skips a cancelled run on its status alone', async () => {
    const { ledger, getRuns } = await cancelledRun();
    const deps = { ledger, contexts: unused as RunContextCache, aggregateQueue: unused as never, parts: unused as never };

    expect(await generateWork({ ...deps, executeQueues: {}, fargateQueues: {} }, item)).toEqual({ status: 'skipped' });
    expect(await executeWork(deps, { item } as unknown as GeneratedMessage)).toEqual({ status: 'skipped' });
    expect(getRuns()).toBe(0);
  });
});
