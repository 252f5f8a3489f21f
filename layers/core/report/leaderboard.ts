/**
 * The local leaderboard: the best completed run per model on each benchmark, ranked by the
 * benchmark's headline metric (or one the user names) with its bootstrap interval. Pure:
 * the caller reads run summaries and ledger rows and hands them in.
 *
 * A "board" is one benchmark on one dataset, one language and one protocol, ranked by one
 * metric key: a model's score on the bundled sample and on the published set, in C and in
 * Python, or under two gold rules, are different numbers and never compete for one row. ABRICOT has two headline keys (one
 * per subtask), hence two boards per dataset.
 */
import { headlineKeys } from '../benchmarks/index.ts';
import type { MetricValue } from './aggregate.ts';
import type { Manifest } from '../run/index.ts';

/** What the leaderboard needs to know about one completed run. */
export interface LeaderboardRun {
  run_id: string;
  /** Benchmark id (`rocode`, `abricot`, …). */
  benchmark: string;
  /** The dataset as given to `-b` (`sample/abricot`, `abricot:/data/a.jsonl`, `rocode`). */
  dataset: string;
  /** Model spec as given to `-m`. */
  model: string;
  /** The requested language, or null when the tasks set it. */
  language: string | null;
  /** The protocol the run followed (null: planned before protocols existed). */
  protocol: string | null;
  /** The protocol's headline metric, when it names one. */
  headline?: string;
  items: number;
  cost_usd: number;
  /** When the run completed (ISO 8601). */
  date: string;
  /** The run summary's metrics: `<metric>` and `<metric>/<slice>`. */
  metrics: Readonly<Record<string, MetricValue>>;
}

/** One model on one board: its best run on the ranking metric. */
export interface LeaderboardRow {
  benchmark: string;
  dataset: string;
  language: string | null;
  protocol: string | null;
  model: string;
  /** Metric key ranked by (`pearson`, `accuracy/language=cpp`, …). */
  metric: string;
  value: number | null;
  ci_low: number | null;
  ci_high: number | null;
  /** Units behind the value (tasks or items). */
  n: number;
  items: number;
  cost_usd: number;
  date: string;
  run_id: string;
  /** Completed runs of this model on this board. */
  runs: number;
  /** Why value is null (every run of the model lacks the metric). */
  reason?: string;
}

export interface LeaderboardOptions {
  /** Only boards of this benchmark id or dataset spec. */
  benchmark?: string;
  /** Rank by this metric key instead of each benchmark's headline key(s). */
  metric?: string;
}

/** The board fields of a leaderboard row, in the order boards are listed. */
export type BoardFields = Pick<LeaderboardRow, 'benchmark' | 'dataset' | 'language' | 'protocol' | 'metric'>;

/** The board a run belongs to. */
export function boardKey(row: BoardFields): string {
  return `${row.benchmark}\u0000${row.dataset}\u0000${row.language ?? ''}\u0000${row.protocol ?? ''}\u0000${row.metric}`;
}

/** Boards in listing order: benchmark, dataset, language, protocol, then metric key. */
export function compareBoards(a: BoardFields, b: BoardFields): number {
  return (
    a.benchmark.localeCompare(b.benchmark) ||
    a.dataset.localeCompare(b.dataset) ||
    (a.language ?? '').localeCompare(b.language ?? '') ||
    (a.protocol ?? '').localeCompare(b.protocol ?? '') ||
    a.metric.localeCompare(b.metric)
  );
}

/**
 * Where a run belongs on the leaderboard, read from its manifest — the one rule the local
 * (`polyeval leaderboard`) and the cloud (`GET /leaderboard`) boards share. A run planned
 * before protocols existed has protocol null and no protocol headline: it is ranked by its
 * benchmark's headline on a board of its own.
 * @example
 * boardRunOfManifest(manifest); // { benchmark: 'abricot', dataset: 'sample/abricot', model: 'reference', language: null, protocol: 'calamita', headline: 'accuracy' }
 */
export function boardRunOfManifest(
  manifest: Pick<Manifest, 'benchmark' | 'model' | 'language' | 'protocol'>,
): Pick<LeaderboardRun, 'benchmark' | 'dataset' | 'model' | 'language' | 'protocol' | 'headline'> {
  return {
    benchmark: manifest.benchmark.id,
    dataset: manifest.benchmark.spec,
    model: manifest.model.spec,
    language: manifest.language,
    protocol: manifest.protocol?.name ?? null,
    ...(manifest.protocol ? { headline: manifest.protocol.settings.headline } : {}),
  };
}

/** A board's human label: the dataset, the language when the run fixed one, the protocol. */
export function boardLabel(row: Pick<LeaderboardRow, 'dataset' | 'language' | 'protocol'>): string {
  return `${row.dataset}${row.language ? ` [${row.language}]` : ''}${row.protocol ? ` · ${row.protocol}` : ''}`;
}

function better(a: LeaderboardRow, b: LeaderboardRow): boolean {
  if (a.value !== null && b.value === null) return true;
  if (a.value === null || b.value === null) return a.value === null && b.value === null && a.date > b.date;
  if (a.value !== b.value) return a.value > b.value;
  return a.date > b.date || (a.date === b.date && a.run_id > b.run_id);
}

function rowOf(run: LeaderboardRun, metric: string): LeaderboardRow {
  const m = run.metrics[metric];
  const row: LeaderboardRow = {
    benchmark: run.benchmark,
    dataset: run.dataset,
    language: run.language,
    protocol: run.protocol,
    model: run.model,
    metric,
    value: m?.value ?? null,
    ci_low: m?.ci_low ?? null,
    ci_high: m?.ci_high ?? null,
    n: m?.n ?? 0,
    items: run.items,
    cost_usd: run.cost_usd,
    date: run.date,
    run_id: run.run_id,
    runs: 1,
  };
  if (row.value === null) row.reason = m?.reason ?? `the run has no metric "${metric}"`;
  return row;
}

/**
 * The best run per model and board, best first within each board; boards in name order.
 * A model whose runs all lack the metric is listed last on its board with the reason.
 * Ties go to the latest run.
 * @example
 * const rows = buildLeaderboard(runs, { benchmark: 'abricot' });
 * rows[0]; // { model: 'bedrock:…', metric: 'pearson', value: 0.61, ci_low: 0.5, ci_high: 0.7, … }
 */
export function buildLeaderboard(runs: readonly LeaderboardRun[], options: LeaderboardOptions = {}): LeaderboardRow[] {
  const best = new Map<string, LeaderboardRow>();
  for (const run of runs) {
    if (options.benchmark && run.benchmark !== options.benchmark && run.dataset !== options.benchmark) continue;
    for (const metric of options.metric ? [options.metric] : headlineKeys(run.benchmark, run.headline)) {
      const row = rowOf(run, metric);
      const key = `${boardKey(row)}\u0000${run.model}`;
      const current = best.get(key);
      if (!current) best.set(key, row);
      else best.set(key, { ...(better(row, current) ? row : current), runs: current.runs + 1 });
    }
  }
  return [...best.values()].sort(
    (a, b) =>
      compareBoards(a, b) || (a.value === null ? 1 : 0) - (b.value === null ? 1 : 0) || (b.value ?? 0) - (a.value ?? 0) || a.model.localeCompare(b.model),
  );
}
