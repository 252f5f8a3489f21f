// The nightly sweep handler: benchmarks × models started as POST /runs starts them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileRunLedger } from '#local/index.ts';
import { MissingEnvironmentError, queueUrlsByLanguage, requireEnv } from '../../../functions/shared/env.ts';
import type { PlanMessage } from '#app/cloud/messages.ts';
import { makeHandler } from '../../../functions/nightly/handler.ts';
import { lambdaContext } from './cloud-harness.ts';

const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(parameters: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'polyeval-nightly-'));
  dirs.push(dir);
  const ledger = new FileRunLedger(dir);
  const sent: PlanMessage[] = [];
  let n = 0;
  const handler = makeHandler({
    ledger,
    planQueue: { send: (messages) => Promise.resolve(void sent.push(...messages.map((m) => m.body))) },
    clock: () => new Date('2026-01-02T03:00:00Z'),
    randomSuffix: () => String(++n).padStart(6, '0'),
    readParameter: (name) => {
      const value = parameters[name];
      return value === undefined ? Promise.reject(new Error(`no parameter ${name}`)) : Promise.resolve(value);
    },
    defaultParameterName: '/polyeval/nightly',
  });
  return { ledger, sent, handler };
}

const sweep = {
  benchmarks: ['sample/abricot', 'sample/kotlin-humaneval'],
  models: ['reference', 'openai:http://127.0.0.1:9/v1#m'],
  params: { n: 2, top_p: 0.9 },
  split: 'test',
};

describe('the nightly sweep', () => {
  it('starts one run per benchmark × model from an inline sweep, with the shared parameters', async () => {
    const { ledger, sent, handler } = setup();

    const { runs } = await handler({ source: 'inline', sweep }, lambdaContext('nightly'));

    expect(runs.map((r) => `${r.benchmark} ${r.model}`)).toEqual([
      'abricot reference',
      'abricot openai:http://127.0.0.1:9/v1#m',
      'kotlin-humaneval reference',
      'kotlin-humaneval openai:http://127.0.0.1:9/v1#m',
    ]);
    expect(sent).toHaveLength(4);
    expect(sent[0]?.request?.spec).toMatchObject({ benchmark: 'sample/abricot', model: 'reference', n: 2, topP: 0.9, split: 'test' });
    expect((await ledger.listRuns()).map((r) => r.status)).toEqual(['planned', 'planned', 'planned', 'planned']);
  });

  it('reads the sweep from the SSM parameter the event or the environment names', async () => {
    const { sent, handler } = setup({ '/polyeval/nightly': JSON.stringify({ benchmarks: ['sample/abricot'], models: ['reference'] }) });

    const { runs } = await handler({ source: 'ssm' }, lambdaContext('nightly'));

    expect(runs).toHaveLength(1);
    expect(sent[0]).toMatchObject({ runId: runs[0]?.run_id, offset: 0 });
  });

  it('derives run ids from the schedule’s time, so a retried invocation starts nothing twice', async () => {
    const { ledger, sent, handler } = setup();
    const event = { source: 'inline', sweep, scheduledTime: '2026-01-02T03:00:00Z' };

    const first = await handler(event, lambdaContext('nightly'));
    const retry = await handler(event, lambdaContext('nightly'));
    const nextNight = await handler({ ...event, scheduledTime: '2026-01-03T03:00:00Z' }, lambdaContext('nightly'));

    expect(retry.runs).toEqual(first.runs);
    expect(first.runs[0]?.run_id).toMatch(/^abricot-20260102T030000Z-[0-9a-f]{6}$/);
    expect(new Set(first.runs.map((r) => r.run_id)).size).toBe(4);
    expect(sent).toHaveLength(8);
    expect(nextNight.runs.map((r) => r.run_id)).not.toEqual(first.runs.map((r) => r.run_id));
    expect(await ledger.listRuns()).toHaveLength(8);
  });

  it('rejects a sweep whose parameters fail the run schema, naming the field', async () => {
    const { sent, handler } = setup();

    await expect(handler({ source: 'inline', sweep: { ...sweep, params: { temperature: 9 } } }, lambdaContext('nightly'))).rejects.toThrow(
      /field "temperature"/,
    );
    expect(sent).toEqual([]);
  });
});

describe('function environment', () => {
  it('names the missing variable', () => {
    expect(() => requireEnv('BUCKET_NAME', {})).toThrow(MissingEnvironmentError);
    expect(() => requireEnv('BUCKET_NAME', {})).toThrow('environment variable BUCKET_NAME is not set');
    expect(requireEnv('BUCKET_NAME', { BUCKET_NAME: 'b' })).toBe('b');
  });

  it('maps EXECUTE_QUEUE_URL_<LANGUAGE> variables to languages', () => {
    const env = { EXECUTE_QUEUE_URL_PYTHON: 'q1', EXECUTE_QUEUE_URL_CPP: 'q2', EXECUTE_FARGATE_QUEUE_URL_CPP: 'q3' };
    expect(queueUrlsByLanguage('EXECUTE_QUEUE_URL_', env)).toEqual({ python: 'q1', cpp: 'q2' });
    expect(queueUrlsByLanguage('EXECUTE_FARGATE_QUEUE_URL_', env)).toEqual({ cpp: 'q3' });
  });
});
