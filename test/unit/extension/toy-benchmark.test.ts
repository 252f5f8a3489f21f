// A benchmark written in one file and registered in one registry is picked up everywhere a
// benchmark is listed or resolved: `-b` parsing, `polyeval list benchmarks`, Athena's
// partition values, the headline metric, the Hub resolver, a local run end to end (with its
// own metric) and the HTTP API's POST /runs. The toy lives in test/support/toy-benchmark.ts
// and is never added to the shipped registry.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHome } from '#app/local/home.ts';
import { runLocal } from '#app/local/run.ts';
import { computeExtraMetrics } from '#core/benchmarks/extra-metrics.ts';
import { findBenchmark } from '#core/benchmarks/registry.ts';
import { parseBenchmarkSpec } from '#core/benchmarks/spec.ts';
import { HarnessError, InputError } from '#core/errors.ts';
import { headlineKeys, headlineMetric } from '#core/benchmarks/headline.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { FileRunLedger, FsBlobStore } from '#local/index.ts';
import { namedDatasets } from '#sources/index.ts';
import { benchmarkListRows } from '../../../bin/cli/list-benchmarks.ts';
import { makeHandler } from '../../../functions/api/handler.ts';
import { projectionParameters } from '../../../infra/analytics.ts';
import { partitionBenchmarks } from '../../../infra/config.ts';
import { startFakeHub, type FakeHub } from '../../fakes/hub-server.ts';
import { postJson } from '../../integration/cloud/api-events.ts';
import { lambdaContext } from '../../integration/cloud/cloud-harness.ts';
import { TOY_ID, TOY_REGISTRY, TOY_ROWS, toyBenchmark } from '../../support/toy-benchmark.ts';

const dir = mkdtempSync(join(tmpdir(), 'polyeval-toy-'));
const jsonl = (rows: readonly object[]): string => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
let hub: FakeHub;

beforeAll(async () => {
  hub = await startFakeHub({
    repos: {
      'polyeval-tests/toy-warmth': [
        { path: 'README.md', content: '# toy\n' },
        { path: 'toy_train.jsonl', content: jsonl(TOY_ROWS.slice(0, 2)) },
        { path: 'toy_test.jsonl', content: jsonl(TOY_ROWS.slice(2)) },
      ],
    },
  });
  mkdirSync(join(dir, 'package', 'sample', 'toy'), { recursive: true });
  writeFileSync(join(dir, 'package', 'sample', 'toy', 'items.jsonl'), jsonl(TOY_ROWS));
  // The package root a run records its code version from.
  writeFileSync(join(dir, 'package', 'package.json'), JSON.stringify({ name: 'polyeval', version: '0.0.0-toy' }));
});

afterAll(async () => {
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a benchmark registered in one place', () => {
  it('stays out of the shipped registry', () => {
    expect(findBenchmark(TOY_ID)).toBeUndefined();
  });

  it('is accepted by -b as an id, a bundled suite and <id>:<file>, and named among the known ones', () => {
    expect(parseBenchmarkSpec(TOY_ID, {}, TOY_REGISTRY).map((s) => [s.kind, s.benchmark.id])).toEqual([['named', TOY_ID]]);
    expect(parseBenchmarkSpec('sample/toy', {}, TOY_REGISTRY).map((s) => [s.kind, s.spec])).toEqual([['bundled', 'sample/toy']]);
    expect(parseBenchmarkSpec('sample', {}, TOY_REGISTRY).map((s) => s.spec)).toEqual(['sample/toy']);
    expect(parseBenchmarkSpec(`${TOY_ID}:s3://bucket/words.jsonl`, {}, TOY_REGISTRY).map((s) => s.kind)).toEqual(['file']);
    expect(() => parseBenchmarkSpec('abricot', {}, TOY_REGISTRY)).toThrow(InputError);
    expect(() => parseBenchmarkSpec('abricot', {}, TOY_REGISTRY)).toThrow(
      `unknown benchmark "abricot" (known: ${TOY_ID}, sample, sample/toy; or <benchmark>:<path>)`,
    );
  });

  it('is listed by `polyeval list benchmarks` with its bundled suite', () => {
    expect(benchmarkListRows(false, TOY_REGISTRY)).toEqual([
      { name: TOY_ID, kind: 'benchmark', scorer: 'likert', description: toyBenchmark.title, protocols: 'zero-shot (default)' },
      { name: 'sample/toy', kind: 'bundled suite', scorer: 'likert', description: 'six hand-written Italian words', protocols: 'zero-shot (default)' },
    ]);
  });

  it("becomes a value of Athena's benchmark partition projection", () => {
    const values = partitionBenchmarks([], TOY_REGISTRY);
    expect(values).toEqual([TOY_ID]);
    expect(projectionParameters('bucket', 'results/metrics/', values)['projection.benchmark.values']).toBe(TOY_ID);
  });

  it('gives leaderboards its headline metric, per slice as it declares', () => {
    expect(headlineMetric(TOY_ID, TOY_REGISTRY)).toBe('accuracy');
    expect(headlineKeys(TOY_ID, undefined, TOY_REGISTRY)).toEqual(['accuracy/subtask=warmth']);
  });

  it('resolves its published dataset on the Hub', () => {
    expect(namedDatasets(TOY_REGISTRY)).toEqual([{ name: TOY_ID, repo: 'polyeval-tests/toy-warmth', preferred: /^toy_(train|test)\.jsonl$/ }]);
  });

  it('runs locally from its Hub dataset (test split) and from its bundled suite, with its own metric beside the scorer’s', async () => {
    const home = openHome(join(dir, 'home'), {});
    const options = { home, packageRoot: join(dir, 'package'), env: { HF_ENDPOINT: hub.endpoint }, jobs: 1, benchmarks: TOY_REGISTRY };
    const [published] = await runLocal(parseRunSpec({ benchmark: TOY_ID, model: 'reference' }), options);
    const [bundled] = await runLocal(parseRunSpec({ benchmark: 'sample/toy', model: 'reference' }), options);

    if (published?.status !== 'completed' || bundled?.status !== 'completed') throw new Error('a toy run did not complete');
    expect(published.items).toBe(4);
    expect(published.metrics['accuracy/subtask=warmth']?.value).toBe(1);
    expect(published.metrics.word_length?.value).toBeCloseTo((9 + 6 + 2 + 5) / 4, 12);
    expect(bundled.items).toBe(6);
    expect(bundled.metrics.word_length?.value).toBeCloseTo((5 + 8 + 9 + 6 + 2 + 5) / 6, 12);
  });

  it('is accepted by the HTTP API, which names it when a request names another benchmark', async () => {
    const ledger = new FileRunLedger(join(dir, 'ledger'));
    const handler = makeHandler({
      store: new FsBlobStore(join(dir, 'store')),
      ledger,
      results: { sql: () => Promise.resolve([]), close: () => Promise.resolve() },
      planQueue: { send: () => Promise.resolve() },
      clock: () => new Date('2026-01-01T00:00:00Z'),
      pairs: [],
      move: () => Promise.resolve({ moved: 0 }),
      signedGetUrl: () => Promise.reject(new Error('no report link is asked here')),
      benchmarks: TOY_REGISTRY,
    });
    const accepted = await handler(postJson('/runs', { benchmark: TOY_ID, model: 'reference' }), lambdaContext('api'));
    expect(accepted.statusCode).toBe(202);
    const runId = (JSON.parse(accepted.body ?? '{}') as { run_id: string }).run_id;
    expect(runId.startsWith(`${TOY_ID}-`)).toBe(true);
    expect((await ledger.getRun(runId))?.benchmark).toBe(TOY_ID);

    const refused = await handler(postJson('/runs', { benchmark: 'rocode', model: 'reference' }), lambdaContext('api'));
    expect(refused.statusCode).toBe(400);
    expect((JSON.parse(refused.body ?? '{}') as { message: string }).message).toContain(`known: ${TOY_ID}`);
  });

  it('may return only the metric ids it declares', async () => {
    const declared = toyBenchmark.extraMetrics;
    if (!declared) throw new Error('the toy declares a metric of its own');
    const liar = { ...toyBenchmark, extraMetrics: { ...declared, ids: ['other'] } };
    const head = { run_id: 'r', benchmark: TOY_ID, model: 'm' };
    const record = { task_id: 'warmth/w1' } as Parameters<typeof computeExtraMetrics>[1]['records'][number];
    const tasks = toyBenchmark.parseRow(TOY_ROWS[0] as Record<string, unknown>, { file: 'x', line: 1 });
    await expect(computeExtraMetrics(liar as never, { records: [record], tasks, head, seed: 1 }, () => Promise.resolve({}))).rejects.toThrow(HarnessError);
  });
});
