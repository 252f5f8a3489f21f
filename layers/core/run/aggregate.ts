/**
 * aggregate: when every item is recorded, compute the metrics from the records, write the
 * records and metrics tables (Parquet, hive-partitioned), the run summary and the report.
 */
import { computeMetrics } from '../metrics/index.ts';
import type { BlobStore, RunLedger } from '../ports.ts';
import { renderReport } from '../report/html.ts';
import type { MetricRow, RunRecord, Verdict } from '../types.ts';
import type { ItemDocument } from './engine.ts';
import { keys } from './keys.ts';
import type { Manifest } from './manifest.ts';
import { encodeMetrics, encodeRecords } from './parquet.ts';

export interface MetricValue {
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  n: number;
  reason?: string;
}

/** The run summary: also what `polyeval run --json` prints. */
export interface RunSummaryDocument {
  run_id: string;
  benchmark: string;
  model: string;
  n: number;
  items: number;
  verdicts: Partial<Record<Verdict, number>>;
  /** `<metric>` for slice `all`, `<metric>/<slice>` otherwise. */
  metrics: Record<string, MetricValue>;
  report: string;
  likert_mode: Manifest['likert_mode'];
  /** The protocol the run followed, with every override (absent for runs planned before protocols). */
  protocol?: Manifest['protocol'];
  status: 'completed';
  completed_at: string;
}

export interface AggregateDeps {
  store: BlobStore;
  ledger: RunLedger;
  clock: () => Date;
  /** Bootstrap resamples (default 1000). */
  iterations?: number;
}

/** Reads every item document of a run, in task/sample order. */
export async function readItems(store: BlobStore, runId: string): Promise<ItemDocument[]> {
  const docs: ItemDocument[] = [];
  for (const key of await store.list(keys.itemsPrefix(runId))) {
    const text = await store.getText(key);
    if (text) docs.push(JSON.parse(text) as ItemDocument);
  }
  return docs.sort((a, b) => a.record.task_id.localeCompare(b.record.task_id) || a.record.sample - b.record.sample);
}

export function metricKey(row: Pick<MetricRow, 'metric' | 'slice'>): string {
  return row.slice === 'all' ? row.metric : `${row.metric}/${row.slice}`;
}

export function summariseMetrics(rows: readonly MetricRow[]): Record<string, MetricValue> {
  const out: Record<string, MetricValue> = {};
  for (const row of rows) {
    const value: MetricValue = { value: row.value, ci_low: row.ci_low, ci_high: row.ci_high, n: row.n };
    if (row.reason) value.reason = row.reason;
    out[metricKey(row)] = value;
  }
  return out;
}

export function countVerdicts(records: readonly RunRecord[]): Partial<Record<Verdict, number>> {
  const counts: Partial<Record<Verdict, number>> = {};
  for (const r of records) counts[r.verdict] = (counts[r.verdict] ?? 0) + 1;
  return counts;
}

/** Benchmark-specific metrics computed beside the standard ones (RoCode's code-switching). */
export type ExtraMetrics = (records: readonly RunRecord[]) => Promise<MetricRow[]>;

export async function aggregateRun(deps: AggregateDeps, manifest: Manifest, extraMetrics?: ExtraMetrics): Promise<RunSummaryDocument> {
  const runId = manifest.run_id;
  await deps.ledger.setStatus(runId, 'aggregating');
  const docs = await readItems(deps.store, runId);
  const records = docs.map((d) => d.record);
  const metrics = [
    ...computeMetrics(records, {
      runId,
      benchmark: manifest.benchmark.id,
      model: manifest.model.name,
      scorer: manifest.benchmark.scorer,
      n: manifest.n,
      seed: manifest.seed,
      ...(deps.iterations ? { iterations: deps.iterations } : {}),
    }),
    ...(extraMetrics ? await extraMetrics(records) : []),
  ];
  await deps.store.put(keys.recordsPart(manifest.benchmark.id, runId), encodeRecords(records), 'application/vnd.apache.parquet');
  await deps.store.put(keys.metrics(manifest.benchmark.id, runId), encodeMetrics(metrics), 'application/vnd.apache.parquet');
  const summary: RunSummaryDocument = {
    run_id: runId,
    benchmark: manifest.benchmark.id,
    model: manifest.model.name,
    n: manifest.n,
    items: records.length,
    verdicts: countVerdicts(records),
    metrics: summariseMetrics(metrics),
    report: deps.store.locate(keys.report(runId)),
    likert_mode: manifest.likert_mode,
    ...(manifest.protocol ? { protocol: manifest.protocol } : {}),
    status: 'completed',
    completed_at: deps.clock().toISOString(),
  };
  await deps.store.put(keys.report(runId), renderReport({ manifest, metrics, docs, summary }), 'text/html; charset=utf-8');
  await deps.store.put(keys.summary(runId), JSON.stringify(summary, null, 2), 'application/json');
  await deps.ledger.setStatus(runId, 'completed');
  return summary;
}
