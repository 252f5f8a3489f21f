// The api function's error mapping: 4xx say what the caller got wrong, 5xx say nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunLedger } from '#core/ports.ts';
import { FileRunLedger, FsBlobStore } from '#local/index.ts';
import { makeHandler } from '../../../functions/api/handler.ts';
import { apiEvent, postJson } from './api-events.ts';
import { lambdaContext } from './cloud-harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'polyeval-api-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function api(ledger: RunLedger, store = new FsBlobStore(join(dir, 'store'))) {
  const handler = makeHandler({
    store,
    ledger,
    results: { sql: () => Promise.reject(new Error('Athena: access denied for arn:aws:iam::123456789012:role/secret')), close: () => Promise.resolve() },
    planQueue: { send: () => Promise.resolve() },
    clock: () => new Date('2026-01-01T00:00:00Z'),
    pairs: [],
    move: () => Promise.resolve({ moved: 0 }),
    // The signer's own behaviour is tested on moto (test/e2e/remote.test.ts); here only which key it is asked for.
    signedGetUrl: (key, seconds) => Promise.resolve(`https://signed.example/${key}?expires=${seconds}`),
  });
  return async (event: ReturnType<typeof apiEvent>) => {
    const response = await handler(event, lambdaContext('api'));
    return { status: response.statusCode, body: response.body ?? '' };
  };
}

describe('api errors', () => {
  it('answers 500 without any detail when the ledger or Athena fails', async () => {
    const broken = new FileRunLedger(join(dir, 'ledger'));
    broken.listRuns = () => Promise.reject(new Error('DynamoDB table polyeval-secret-table is gone'));
    const call = api(broken);

    for (const event of [apiEvent('GET', '/runs'), apiEvent('GET', '/leaderboard', { query: { benchmark: 'rocode' } })]) {
      const response = await call(event);
      expect(response.status).toBe(500);
      expect(JSON.parse(response.body)).toEqual({ message: 'internal error' });
    }
  });

  it('answers 400 naming the field, 404 for an unknown route, and 202 with the run ids', async () => {
    const call = api(new FileRunLedger(join(dir, 'ledger2')));

    const bad = await call(postJson('/runs', { benchmark: 'sample/abricot', model: 'reference', extra: 1 }));
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).message).toMatch(/request body/);
    const local = await call(postJson('/runs', { benchmark: 'abricot:./items.csv', model: 'reference' }));
    expect(local.status).toBe(400);
    expect(JSON.parse(local.body).message).toMatch(/local file/);
    expect((await call(apiEvent('DELETE', '/runs'))).status).toBe(404);
    const protocol = await call(postJson('/runs', { benchmark: 'sample/abricot', model: 'reference', protocol: 'lm-eval' }));
    expect(protocol.status).toBe(400);
    expect(JSON.parse(protocol.body).message).toContain('unknown protocol "lm-eval" for abricot (protocols: paper, paper-figure, calamita, calamita-fork)');
    const style = await call(postJson('/runs', { benchmark: 'sample/abricot', model: 'reference', promptStyle: 'text' }));
    expect(style.status).toBe(400);
    expect(JSON.parse(style.body).message).toContain('promptStyle');
    expect((await call(postJson('/runs', { benchmark: 'sample/abricot', model: 'reference', protocol: 'calamita' }))).status).toBe(202);

    const ok = await call(postJson('/runs', { benchmark: 'sample/rocode', model: 'reference' }));
    expect(ok.status).toBe(202);
    const runs = (JSON.parse(ok.body) as { runs: { run_id: string; language: string }[] }).runs;
    expect(runs.map((r) => r.language)).toEqual(['python', 'c', 'cpp']);
    expect(runs[0]?.run_id).toBe(JSON.parse(ok.body).run_id);
  });

  it('answers a report link with 404 for an unknown run, 409 for a run without its report yet, 200 with the link once written', async () => {
    const ledger = new FileRunLedger(join(dir, 'ledger-report'));
    const store = new FsBlobStore(join(dir, 'store-report'));
    const call = api(ledger, store);
    await ledger.createRun({ runId: 'r-report', benchmark: 'abricot', model: 'reference', status: 'running', items: 2, createdAt: '2026-01-01T00:00:00.000Z' });

    const unknown = await call(apiEvent('GET', '/runs/no-such-run/report'));
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body).message).toBe('no run "no-such-run"');
    const pending = await call(apiEvent('GET', '/runs/r-report/report'));
    expect(pending.status).toBe(409);
    expect(JSON.parse(pending.body).message).toMatch(/^run "r-report" is running and has no report yet/);

    await store.put('reports/r-report.html', '<!doctype html><title>r</title>');
    const ready = await call(apiEvent('GET', '/runs/r-report/report'));
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toEqual({
      run_id: 'r-report',
      url: 'https://signed.example/reports/r-report.html?expires=300',
      expires_at: '2026-01-01T00:05:00.000Z',
    });
  });
});
