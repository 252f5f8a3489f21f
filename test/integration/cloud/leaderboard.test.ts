// GET /leaderboard's query path against Athena's injected-projection rule: the ranked runs come
// from the ledger and are named in the query, so Athena never has to enumerate run_id; each run
// is placed on its board (dataset, language, protocol) by its manifest.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaderboard } from '#app/cloud/queries.ts';
import { ATHENA_MAX_QUERY_BYTES, leaderboardSql } from '#aws/athena-sql.ts';
import { keys } from '#core/run/keys.ts';
import type { Manifest } from '#core/run/manifest.ts';
import { encodeMetrics } from '#core/run/parquet.ts';
import type { ResultsQuery, RunSummary, SqlStatement } from '#core/ports.ts';
import type { MetricRow } from '#core/types.ts';
import { DuckDbResultsQuery, FileRunLedger, FsBlobStore } from '#local/index.ts';
import { AthenaProjectionRuleQuery } from '../../fakes/athena-projection-query.ts';
import { boundSql } from '../../fakes/bound-sql.ts';
import { manifestOf } from '../../../sim/synthetic-report.ts';
import { apiEvent } from './api-events.ts';
import { apiClient, drive, startCloud, type Cloud } from './cloud-harness.ts';
import { openResultsCopy, type ResultsCopy } from './results-copy.ts';

let root: string;
let duck: DuckDbResultsQuery;
let ledger: FileRunLedger;
let store: FsBlobStore;

function row(benchmark: string, runId: string, model: string, metric: string, value: number): MetricRow {
  return { run_id: runId, benchmark, model, metric, slice: 'all', value, ci_low: value - 0.1, ci_high: value + 0.1, n: 10, reason: null };
}

/** A manifest written before protocols existed (no `protocol`): ranked by the benchmark's headline. */
function preProtocolManifest(runId: string, benchmark: string, model: string): Manifest {
  return manifestOf({
    schema_version: 1,
    run_id: runId,
    created_at: '2026-01-01T00:00:00Z',
    benchmark: {
      id: benchmark,
      title: benchmark,
      spec: `sample/${benchmark}`,
      source: 'bundled',
      sha256: '0'.repeat(64),
      tasks: 1,
      scorer: benchmark === 'rocode' ? 'io-tests' : 'unit-tests',
    },
    model: { spec: model, kind: 'reference', name: model },
  });
}

const RUNS: { runId: string; benchmark: string; model: string; status: 'completed' | 'running'; rows: MetricRow[]; manifest?: false }[] = [
  {
    runId: 'rocode-20260101T000000Z-aaaaaa',
    benchmark: 'rocode',
    model: 'm1',
    status: 'completed',
    rows: [row('rocode', 'rocode-20260101T000000Z-aaaaaa', 'm1', 'accuracy', 0.4)],
  },
  {
    runId: 'rocode-20260102T000000Z-bbbbbb',
    benchmark: 'rocode',
    model: 'm1',
    status: 'completed',
    rows: [row('rocode', 'rocode-20260102T000000Z-bbbbbb', 'm1', 'accuracy', 0.6)],
  },
  {
    runId: 'mxeval-20260103T000000Z-cccccc',
    benchmark: 'mxeval',
    model: 'm2',
    status: 'completed',
    rows: [row('mxeval', 'mxeval-20260103T000000Z-cccccc', 'm2', 'pass@1', 0.7)],
  },
  { runId: 'rocode-20260104T000000Z-dddddd', benchmark: 'rocode', model: 'm3', status: 'running', rows: [] },
  // Its manifest is gone (removed by hand): nowhere to place it, so it is left out.
  {
    runId: 'rocode-20260105T000000Z-eeeeee',
    benchmark: 'rocode',
    model: 'm4',
    status: 'completed',
    rows: [row('rocode', 'rocode-20260105T000000Z-eeeeee', 'm4', 'accuracy', 0.9)],
    manifest: false,
  },
];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'polyeval-leaderboard-'));
  ledger = new FileRunLedger(join(root, 'ledger'));
  store = new FsBlobStore(root);
  for (const run of RUNS) {
    await ledger.createRun({
      runId: run.runId,
      benchmark: run.benchmark,
      model: run.model,
      status: run.status,
      items: 1,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    if (run.manifest !== false)
      await store.put(keys.manifest(run.runId), JSON.stringify(preProtocolManifest(run.runId, run.benchmark, run.model)), 'application/json');
    if (run.rows.length === 0) continue;
    const path = join(root, keys.metrics(run.benchmark, run.runId));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, encodeMetrics(run.rows));
  }
  duck = await DuckDbResultsQuery.open(root);
});

afterAll(async () => {
  await duck?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

describe('leaderboard on an injected run_id projection', () => {
  it('is refused by the Athena rule when the query does not name its runs', async () => {
    const athena = new AthenaProjectionRuleQuery(duck);

    await expect(athena.sql(leaderboardSql('rocode'))).rejects.toThrow(/CONSTRAINT_VIOLATION/);
  });

  it("ranks the benchmark's runs the ledger knows, naming each in the query", async () => {
    const athena = new AthenaProjectionRuleQuery(duck);

    const board = await leaderboard({ store, ledger, results: athena }, { benchmark: 'rocode' });

    expect(board.rows).toEqual([expect.objectContaining({ model: 'm1', run_id: 'rocode-20260102T000000Z-bbbbbb', value: 0.6, runs: 2 })]);
    // The local leaderboard's columns the metrics do not hold come from the run's ledger row.
    const [best] = board.rows;
    const ledgerRow = (await ledger.listRuns()).find((r) => r.runId === 'rocode-20260102T000000Z-bbbbbb');
    expect(best).toMatchObject({ items: ledgerRow?.items, cost_usd: ledgerRow?.costUsd, date: ledgerRow?.createdAt });
    expect(athena.queries).toHaveLength(1);
    expect(athena.queries[0]).toMatch(/run_id IN \('rocode-20260101T000000Z-aaaaaa', 'rocode-20260102T000000Z-bbbbbb', 'rocode-20260104T000000Z-dddddd'\)/);
  });

  it("places a run planned before protocols on its dataset's board, ranked by the benchmark's headline", async () => {
    const board = await leaderboard({ store, ledger, results: new AthenaProjectionRuleQuery(duck) }, { benchmark: 'rocode' });

    expect(board.rows).toEqual([
      expect.objectContaining({ dataset: 'sample/rocode', language: null, protocol: null, metric: 'accuracy', board: 'sample/rocode' }),
    ]);
  });

  it('leaves out a run whose manifest is gone instead of failing', async () => {
    const athena = new AthenaProjectionRuleQuery(duck);

    const board = await leaderboard({ store, ledger, results: athena }, { benchmark: 'rocode' });

    expect(board.rows.map((r) => r.model)).toEqual(['m1']);
    expect(athena.queries.join('\n')).not.toContain('rocode-20260105T000000Z-eeeeee');
  });

  it('shows an mxeval run, ranked on pass@1', async () => {
    const board = await leaderboard({ store, ledger, results: new AthenaProjectionRuleQuery(duck) }, { benchmark: 'mxeval' });

    expect(board.rows).toEqual([expect.objectContaining({ model: 'm2', value: 0.7 })]);
  });

  it('answers no rows, without a query, for a benchmark with no run', async () => {
    const athena = new AthenaProjectionRuleQuery(duck);

    const board = await leaderboard({ store, ledger, results: athena }, { benchmark: 'abricot' });

    expect(board).toEqual({ benchmark: 'abricot', rows: [] });
    expect(athena.queries).toEqual([]);
  });
});

describe("Athena's query size limit, per board", () => {
  /** `count` RoCode runs of one language: a ledger and a store of their manifests, in memory. */
  function manyRuns(count: number, languages: readonly string[]) {
    const runs = Array.from({ length: count }, (_, i) => ({
      runId: `rocode-20260101T000000Z-${String(i).padStart(6, '0')}`,
      benchmark: 'rocode',
      language: languages[i % languages.length] ?? null,
    }));
    const manifests = new Map(
      runs.map((r) => [keys.manifest(r.runId), JSON.stringify({ ...preProtocolManifest(r.runId, 'rocode', 'm'), language: r.language })]),
    );
    const queries: string[] = [];
    return {
      queries,
      deps: {
        ledger: {
          listRuns: () =>
            Promise.resolve(
              runs.map(
                (r) => ({ ...r, model: 'm', status: 'completed', items: 1, recorded: 1, verdicts: {}, costUsd: 0, createdAt: '', updatedAt: '' }) as RunSummary,
              ),
            ),
        },
        store: { getText: (key: string) => Promise.resolve(manifests.get(key)), locate: (key: string) => key },
        results: { sql: (query: string | SqlStatement) => (queries.push(boundSql(query)), Promise.resolve([])), close: () => Promise.resolve() },
      },
    };
  }

  it('asks each board within the limit when the runs of one query would exceed it', async () => {
    const split = manyRuns(10_000, ['python', 'cpp']);

    await expect(leaderboard(split.deps, { benchmark: 'rocode' })).resolves.toEqual({ benchmark: 'rocode', rows: [] });
    expect(split.queries).toHaveLength(2);
    for (const query of split.queries) expect(Buffer.byteLength(query, 'utf8')).toBeLessThan(ATHENA_MAX_QUERY_BYTES);
  });

  it('refuses a board whose runs exceed it, naming the board', async () => {
    const one = manyRuns(10_000, ['python']);

    await expect(leaderboard(one.deps, { benchmark: 'rocode' })).rejects.toThrow(
      /board "sample\/rocode \[python\]" names 10000 runs: its query \(\d+ bytes\) exceeds Athena's 262144-byte limit/,
    );
    expect(one.queries).toEqual([]);
  });
});

describe('GET /leaderboard over runs the deployed pipeline completed (moto)', () => {
  let cloud: Cloud;
  let copy: ResultsCopy | undefined;
  let athena: AthenaProjectionRuleQuery | undefined;
  // The api's results: the shipped SQL on DuckDB over what the cloud wrote, under Athena's run_id rule.
  const results: ResultsQuery = {
    sql: (query) => (athena ? athena.sql(query) : Promise.reject(new Error('the results are not copied yet'))),
    close: () => Promise.resolve(),
  };
  const { call, startRun } = apiClient(() => cloud);
  const run = { paper: '', calamita: '', python: '', cpp: '' };
  const NO_MANIFEST = 'rocode-20260106T000000Z-ffffff';

  async function board(query: Record<string, string>): Promise<{ status: number; rows: Record<string, unknown>[]; message?: unknown }> {
    const response = await call(apiEvent('GET', '/leaderboard', { query }));
    return { status: response.status, rows: (response.body.rows ?? []) as Record<string, unknown>[], message: response.body.message };
  }

  beforeAll(async () => {
    cloud = await startCloud({ results, executeLanguages: ['cpp'] });
    run.paper = await startRun({ benchmark: 'sample/abricot', model: 'reference' });
    run.calamita = await startRun({ benchmark: 'sample/abricot', model: 'reference', protocol: 'calamita-fork' });
    run.python = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'python', limit: 2 });
    run.cpp = await startRun({ benchmark: 'sample/rocode', model: 'reference', language: 'cpp', limit: 2 });
    await drive(cloud);
    // A run the ledger knows whose manifest was never written (or was removed): nowhere to place it.
    await cloud.ledger.createRun({
      runId: NO_MANIFEST,
      benchmark: 'rocode',
      model: 'reference',
      status: 'completed',
      items: 1,
      createdAt: '2026-01-06T00:00:00.000Z',
    });
    // runs/ has expired for the cpp run: its kept copy under results/runs/ places it.
    await cloud.store.delete(keys.manifest(run.cpp));
    copy = await openResultsCopy(cloud.store);
    athena = new AthenaProjectionRuleQuery(copy.query);
  }, 600_000);

  afterAll(async () => {
    await copy?.close();
    await cloud?.stop();
  });

  it("ranks ABRICOT's paper and calamita-fork runs on separate boards, each by its protocol's headline on both subtasks", async () => {
    const before = athena?.queries.length ?? 0;

    const { status, rows } = await board({ benchmark: 'abricot' });

    expect(status).toBe(200);
    expect(rows.map((r) => [r.board, r.protocol, r.metric, r.slice, r.run_id])).toEqual([
      ['sample/abricot · calamita-fork', 'calamita-fork', 'accuracy/subtask=abstractness', 'subtask=abstractness', run.calamita],
      ['sample/abricot · calamita-fork', 'calamita-fork', 'accuracy/subtask=inclusiveness', 'subtask=inclusiveness', run.calamita],
      ['sample/abricot · paper', 'paper', 'pearson/subtask=abstractness', 'subtask=abstractness', run.paper],
      ['sample/abricot · paper', 'paper', 'pearson/subtask=inclusiveness', 'subtask=inclusiveness', run.paper],
    ]);
    for (const row of rows) {
      expect(row).toMatchObject({ model: 'reference', dataset: 'sample/abricot', language: null, runs: 1 });
      expect(row.value).toBeCloseTo(1, 10);
    }
    // One query per board, naming only that board's run and its headline metric.
    const queries = athena?.queries.slice(before) ?? [];
    expect(queries).toHaveLength(2);
    const calamitaQuery = queries.find((q) => q.includes(run.calamita)) ?? '';
    expect(calamitaQuery).toContain("metric = 'accuracy'");
    expect(calamitaQuery).not.toContain(run.paper);
    expect(queries.find((q) => q.includes(run.paper))).toContain("metric = 'pearson'");
  });

  it("ranks RoCode runs in two languages on separate boards by the protocol's headline (accuracy), placing a run from its kept manifest and skipping one without", async () => {
    const before = athena?.queries.length ?? 0;

    const { status, rows } = await board({ benchmark: 'rocode' });

    expect(status).toBe(200);
    expect(rows).toEqual([
      expect.objectContaining({
        board: 'sample/rocode [cpp] · paper',
        language: 'cpp',
        protocol: 'paper',
        metric: 'accuracy',
        run_id: run.cpp,
        value: 1,
        n: 2,
      }),
      expect.objectContaining({
        board: 'sample/rocode [python] · paper',
        language: 'python',
        protocol: 'paper',
        metric: 'accuracy',
        run_id: run.python,
        value: 1,
        n: 2,
      }),
    ]);
    expect(rows.every((r) => !('slice' in r))).toBe(true);
    const queries = athena?.queries.slice(before) ?? [];
    expect(queries).toHaveLength(2);
    expect(queries.join('\n')).not.toContain(NO_MANIFEST);
  });

  it('keeps only the boards of the protocol, language or dataset asked for', async () => {
    expect((await board({ benchmark: 'abricot', protocol: 'calamita-fork' })).rows.map((r) => r.run_id)).toEqual([run.calamita, run.calamita]);
    expect((await board({ benchmark: 'rocode', language: 'cpp' })).rows.map((r) => r.run_id)).toEqual([run.cpp]);
    expect((await board({ benchmark: 'abricot', dataset: 'sample/abricot' })).rows).toHaveLength(4);
    expect(await board({ benchmark: 'abricot', dataset: 'abricot' })).toMatchObject({ status: 200, rows: [] });
  });

  it('ranks every board by the metric and slice asked for', async () => {
    const { rows } = await board({ benchmark: 'abricot', metric: 'accuracy', slice: 'subtask=abstractness' });

    expect(rows.map((r) => [r.board, r.metric])).toEqual([
      ['sample/abricot · calamita-fork', 'accuracy/subtask=abstractness'],
      ['sample/abricot · paper', 'accuracy/subtask=abstractness'],
    ]);
  });

  it('answers 400 naming the protocol and the choices when the benchmark has no such protocol', async () => {
    const response = await board({ benchmark: 'abricot', protocol: 'nope' });

    expect(response.status).toBe(400);
    expect(response.message).toBe('field "protocol": unknown protocol "nope" for abricot (protocols: paper, paper-figure, calamita, calamita-fork)');
  });
});
