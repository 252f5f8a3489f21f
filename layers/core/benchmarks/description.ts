/**
 * What a benchmark says about itself beyond rows, prompts and scoring (DESIGN §3): the slices
 * its headline metric is read from (the metric itself is each protocol's `headline`, the
 * benchmark's being its default protocol's), the dataset `-b <id>` downloads, the sample suites bundled with
 * polyeval, and metrics of its own. Registries, Athena partitions, the named-dataset resolver,
 * `polyeval list benchmarks`, the cloud estimate and both aggregators read these fields, so a
 * benchmark is added in its own file and one registry line.
 *
 * @example
 * const description: Pick<BenchmarkDescription<LikertTask>, 'headlineSlices'> = { headlineSlices: ['subtask=abstractness', 'subtask=inclusiveness'] };
 */
import type { GoldRule, ProtocolChoice, RunProtocol } from './protocol.ts';
import type { MetricRow, RunRecord, Task } from '../types.ts';

/** The published dataset behind `-b <id>` on the Hugging Face Hub. */
export interface PublishedDataset {
  /** Hub dataset repository (`owner/name`). */
  hub: string;
  /**
   * Files read when present (else any readable data file; else the data URLs of a loading
   * script). Each file's split is read from its name (`train`, `val`/`dev` → `validation`,
   * `test`); the column aliases are the benchmark's `fields`.
   */
  files: RegExp;
}

/** A sample suite shipped in the package's `sample/` folder (`-b sample/<name>`). */
export interface BundledSuiteSpec {
  /** `sample/<name>` */
  name: string;
  /** Path under the package's `sample/` folder. */
  file: string;
  description: string;
  /**
   * Executor ms per sample (compile + run) of the suite's reference answers, by language,
   * measured with `polyeval run -b sample/<name> -m reference --limit 4`: what
   * `remote run --dry-run` assumes before a cloud run of the benchmark has measured its own.
   */
  executorMsPerSample?: Readonly<Record<string, number>>;
}

/** Inputs outside core a benchmark-specific metric needs, loaded by layers/sources on demand. */
export interface BenchmarkResources {
  /** Whether a word is Romanian (hunspell ro_RO, folded), for code-switching. */
  'romanian-lexicon': { isRomanian(word: string): boolean };
}
export type ResourceId = keyof BenchmarkResources;

export interface ExtraMetricsInput<T extends Task> {
  /** The run's records (SE included: the metric decides what it counts). */
  records: readonly RunRecord[];
  /** The run's tasks that have at least one record. */
  tasks: readonly T[];
  head: Pick<MetricRow, 'run_id' | 'benchmark' | 'model'>;
  /** Seeds bootstrap intervals. */
  seed: number;
  /** Resamples per bootstrap interval (absent: the bootstrap's default), as the run's other metrics use. */
  iterations?: number;
}

/** Metrics a benchmark adds beside its scorer's (computed once, for local and cloud runs alike). */
export interface ExtraMetrics<T extends Task> {
  /** Every metric id `compute` may return. */
  ids: readonly string[];
  /** Resources to load before `compute`. */
  needs: readonly ResourceId[];
  /** `resources` holds what `needs` names. */
  compute(input: ExtraMetricsInput<T>, resources: Partial<BenchmarkResources>): MetricRow[];
  /**
   * The benchmark's own report section, which shows the rows of {@link reportIds} (the generic
   * metrics table leaves them out): the section's HTML with its heading, or null/empty for none.
   */
  report?(metrics: readonly MetricRow[], records: readonly RunRecord[]): string | null;
  /** The ids whose rows {@link report} shows (absent: all of {@link ids}); the others stay in the generic metrics table. */
  reportIds?: readonly string[];
}

/** The self-description fields of a benchmark (see {@link Benchmark}). */
export interface BenchmarkDescription<T extends Task> {
  /**
   * Set when the headline metric exists only per slice (ABRICOT's correlations are per
   * subtask, never pooled): the summary keys are then `<metric>/<slice>`, one per slice.
   * Absent: the headline is read from the `all` slice.
   */
  readonly headlineSlices?: readonly string[];
  readonly dataset?: PublishedDataset;
  readonly bundled?: readonly BundledSuiteSpec[];
  readonly extraMetrics?: ExtraMetrics<T>;
  /**
   * How to re-bind a manifest written before protocols existed (absent: the default protocol).
   */
  readonly legacyProtocolChoice?: ProtocolChoice;
  /**
   * A protocol renamed since a manifest was written: the name it now has, and the settings it
   * then had that are no longer the protocol's defaults (absent: the name still means the same).
   */
  renamedProtocol?(recorded: RunProtocol): { protocol: string; gold?: GoldRule } | undefined;
}
