/**
 * aggregate: when every item is recorded, compute the metrics from the records, write the
 * records and metrics tables (Parquet, hive-partitioned), the run summary and the report.
 */
import { z } from 'zod';
import { computeMetrics } from '../scorers/index.ts';
import type { BlobStore, RunLedger } from '../ports.ts';
import { renderReport } from './html.ts';
import { countTies, tieWarningOf, type TieCount } from '../judging/index.ts';
import { VerdictSchema } from '../columns.ts';
import type { MetricRow, RunRecord, Verdict } from '../types.ts';
import { parseItemDocument, type ItemDocument } from '../run/index.ts';
import { keys } from '../run/index.ts';
import { ManifestSchema, type Manifest } from '../run/index.ts';
import { parseStored, schemaVersionField, storedJson } from '../run/index.ts';
import { encodeMetrics, encodeRecords } from '../run/index.ts';

const MetricValueSchema = z.object({
  value: z.number().nullable(),
  ci_low: z.number().nullable(),
  ci_high: z.number().nullable(),
  n: z.number(),
  reason: z.string().optional(),
});
export type MetricValue = z.infer<typeof MetricValueSchema>;

/** Executor time per executed sample (compile + run), over the records that have it. */
const ExecutionTimingSchema = z.object({ samples: z.number(), execute_ms_mean: z.number(), execute_ms_p95: z.number() });
export type ExecutionTiming = z.infer<typeof ExecutionTimingSchema>;

/**
 * The run summary (`runs/<run_id>/summary.json`): also what `polyeval run --json` prints;
 * {@link RunSummaryDocument} is inferred from it.
 */
export const RunSummaryDocumentSchema = z
  .object({
    schema_version: schemaVersionField,
    run_id: z.string().min(1),
    benchmark: z.string(),
    model: z.string(),
    n: z.number(),
    items: z.number(),
    verdicts: z.partialRecord(VerdictSchema, z.number()),
    /** `<metric>` for slice `all`, `<metric>/<slice>` otherwise. */
    metrics: z.record(z.string(), MetricValueSchema),
    report: z.string(),
    likert_mode: ManifestSchema.shape.likert_mode,
    /** likert: the mode's wire method and why it was chosen. */
    likert_scoring: ManifestSchema.shape.likert_scoring,
    /** What was adapted to the model before any call. */
    warnings: z.array(z.string()).optional(),
    /** The protocol the run followed, with every override (absent for runs planned before protocols). */
    protocol: ManifestSchema.shape.protocol,
    /** `completed_with_missing` when some planned items were never recorded (listed in `missing`). */
    status: z.enum(['completed', 'completed_with_missing']),
    completed_at: z.string(),
    /** Item ids planned but never recorded (only with status `completed_with_missing`). */
    missing: z.array(z.string()).optional(),
    /** Of `missing`: the items a dead-letter queue held when the run was closed (`polyeval remote redrive` retries them). */
    dead_lettered: z.array(z.string()).optional(),
    /** Of `missing`: the items in no queue and no DLQ (never recorded, nothing left to redrive: run them again). */
    lost: z.array(z.string()).optional(),
    /** Measured executor time per sample (cloud runs): what `remote run --dry-run` estimates from. */
    timing: ExecutionTimingSchema.optional(),
  })
  .loose();
export type RunSummaryDocument = z.infer<typeof RunSummaryDocumentSchema>;

/**
 * The one reader of a stored run summary's text (`origin`: its key or path, for the error).
 * @throws CorruptRecordError naming `origin` and the field that does not match.
 */
export function parseRunSummary(text: string, origin: string): RunSummaryDocument {
  return parseStored(RunSummaryDocumentSchema, text, origin);
}

/** The timing of the executed records; undefined when none was executed (likert runs). */
export function executionTiming(records: readonly RunRecord[]): ExecutionTiming | undefined {
  const times = records
    .filter((r) => r.compile_ms !== null || r.run_ms !== null)
    .map((r) => (r.compile_ms ?? 0) + (r.run_ms ?? 0))
    .sort((a, b) => a - b);
  if (times.length === 0) return undefined;
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  return {
    samples: times.length,
    execute_ms_mean: Math.round(mean),
    execute_ms_p95: Math.round(times[Math.min(times.length - 1, Math.floor(0.95 * times.length))] ?? 0),
  };
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
    if (text) docs.push(parseItemDocument(text, store.locate(key)));
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

/** A local run's summary: every planned item is recorded, so never `completed_with_missing`. */
export type CompletedSummary = RunSummaryDocument & { status: 'completed' };

export async function aggregateRun(deps: AggregateDeps, manifest: Manifest, extraMetrics?: ExtraMetrics): Promise<CompletedSummary> {
  await deps.ledger.setStatus(manifest.run_id, 'aggregating');
  const docs = await readItems(deps.store, manifest.run_id);
  await deps.store.put(keys.recordsPart(manifest.benchmark.id, manifest.run_id), encodeRecords(docs.map((d) => d.record)), 'application/vnd.apache.parquet');
  const summary = await summariseRecords(deps, manifest, docs, extraMetrics);
  await deps.ledger.setStatus(manifest.run_id, 'completed');
  return { ...summary, status: 'completed' };
}

/**
 * The part of aggregation that works from the records alone: metrics, the metrics table, the
 * report and the summary. The cloud calls it with records read from the Parquet parts, so a
 * large run is never read item by item; `missing` lists planned items never recorded.
 * Documents rebuilt from records ({@link documentFromRecord}) give the report what a record has.
 */
/** An item document carrying only what its record holds (the cloud reads records from Parquet parts, not items). */
export function documentFromRecord(record: RunRecord): ItemDocument {
  const outcome: ItemDocument['outcome'] = { verdict: record.verdict, testsPassed: record.tests_passed, testsTotal: record.tests_total };
  if (record.error !== null) outcome.error = record.error;
  if (record.compile_ms !== null) outcome.compileMs = record.compile_ms;
  if (record.run_ms !== null) outcome.runMs = record.run_ms;
  if (record.predicted !== null) outcome.predicted = record.predicted;
  if (record.gold !== null) outcome.gold = record.gold;
  return {
    item_id: `${record.run_id}/${record.task_id}/${record.sample}`,
    record,
    raw: record.answer,
    generation: { usage: null, latency_ms: null, attempts: 0 },
    outcome,
  };
}

export async function summariseRecords(
  deps: AggregateDeps,
  manifest: Manifest,
  docs: readonly ItemDocument[],
  extraMetrics?: ExtraMetrics,
  notes: {
    missing?: readonly string[];
    deadLettered?: readonly string[];
    timing?: boolean;
    /** Tied likert items counted where the choice scores were read (a cloud run's parts: its records carry no scores). */
    ties?: TieCount;
  } = {},
): Promise<RunSummaryDocument> {
  const missing = notes.missing ?? [];
  const inDlq = new Set(notes.deadLettered ?? []);
  const runId = manifest.run_id;
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
  await deps.store.put(keys.metrics(manifest.benchmark.id, runId), encodeMetrics(metrics), 'application/vnd.apache.parquet');
  const ties = tieWarningOf(notes.ties ?? countTies(docs.flatMap((d) => (d.outcome.choiceLogprobs ? [d.outcome.choiceLogprobs] : []))));
  const warnings = [...(manifest.warnings ?? []), ...(ties ? [ties] : [])];
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
    ...(manifest.likert_scoring ? { likert_scoring: manifest.likert_scoring } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
    ...(manifest.protocol ? { protocol: manifest.protocol } : {}),
    status: missing.length > 0 ? 'completed_with_missing' : 'completed',
    completed_at: deps.clock().toISOString(),
    ...(missing.length > 0 ? { missing: [...missing] } : {}),
    ...(missing.length > 0 && notes.deadLettered !== undefined
      ? { dead_lettered: missing.filter((id) => inDlq.has(id)), lost: missing.filter((id) => !inDlq.has(id)) }
      : {}),
  };
  const timing = notes.timing ? executionTiming(records) : undefined;
  if (timing) summary.timing = timing;
  await deps.store.put(keys.report(runId), renderReport({ manifest, metrics, docs, summary }), 'text/html; charset=utf-8');
  await deps.store.put(keys.summary(runId), storedJson(summary, 2), 'application/json');
  return summary;
}
