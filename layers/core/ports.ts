/**
 * The five ports (DESIGN §4). The engine talks only to these; `layers/local` and
 * `layers/aws` implement them.
 */
import type { ToolchainOptions } from './languages/index.ts';

/** The memory a test program gets when its benchmark states none (MB): the JVM needs room. */
export const DEFAULT_TEST_MEMORY_MB = 512;
import type { LanguageId, MetricRow, ScoreOutcome, Task, Verdict } from './types.ts';

/**
 * Key/value blobs laid out like S3 keys (DESIGN §5).
 * @example
 * await store.put('runs/r1/manifest.json', JSON.stringify(manifest));
 * const text = await store.getText('runs/r1/manifest.json');
 */
export interface BlobStore {
  /** Writes atomically: a reader sees the old object or the new one, never a part. Overwrites. */
  put(key: string, body: string | Uint8Array, contentType?: string): Promise<void>;
  /**
   * Writes only when `key` does not exist yet (a create-only write; S3's `If-None-Match: *`):
   * true when this call created it, false when the key was there (nothing is changed). Optional:
   * without it a caller falls back to `exists` then `put`, which two writers may both pass.
   */
  putIfAbsent?(key: string, body: string | Uint8Array, contentType?: string): Promise<boolean>;
  /** Returns undefined when the key does not exist. */
  get(key: string): Promise<Uint8Array | undefined>;
  getText(key: string): Promise<string | undefined>;
  exists(key: string): Promise<boolean>;
  /** Every key under a prefix, in lexicographic order. */
  list(prefix: string): Promise<string[]>;
  delete(key: string): Promise<void>;
  /** A locator a human can open (file path or s3:// URL). */
  locate(key: string): string;
}

export interface QueueMessage<T> {
  id: string;
  body: T;
  /** How many times this message was delivered (1 on first delivery). */
  attempt: number;
}

/**
 * A work queue with at-least-once delivery. A message is removed only when its
 * handler resolves; a throwing handler leaves it to be redelivered (up to maxAttempts).
 * @example
 * await queue.send([{ id: 'r1/t1/0', body: item }]);
 * await queue.consume(async (m) => handle(m.body), { concurrency: 4 });
 */
export interface WorkQueue<T> {
  send(messages: { id: string; body: T }[]): Promise<void>;
  /** Consumes until the queue is drained and closed; resolves when every message is acked or dead. */
  consume(handler: (message: QueueMessage<T>) => Promise<void>, options: { concurrency: number }): Promise<void>;
  /** No more messages will be sent. */
  close(): void;
}

/**
 * `completed_with_missing`: aggregated over what was recorded, the items that never were listed
 * in the summary (the cloud watchdog's verdict on a stuck run); `cancelled`: stopped by the
 * user, queued work is skipped.
 */
export type RunStatus = 'planned' | 'running' | 'aggregating' | 'completed' | 'completed_with_missing' | 'stopped' | 'cancelled' | 'failed';

export interface RunSummary {
  runId: string;
  benchmark: string;
  model: string;
  status: RunStatus;
  items: number;
  recorded: number;
  verdicts: Partial<Record<Verdict, number>>;
  costUsd: number;
  createdAt: string;
  updatedAt: string;
  reason?: string;
}

/** One item to count in the ledger: its id (`<run>/<task>/<sample>`) and its verdict. */
export interface ItemCount {
  itemId: string;
  verdict: Verdict;
}

/** One settlement of a model call to book (an uncapped run's): its booking id (the cost guard's) and its USD. */
export interface CostBooking {
  bookingId: string;
  usd: number;
}

/**
 * Run status and counters. `recordItem` is a conditional write keyed on the item id:
 * a redelivered item never counts twice.
 * @example
 * if (await ledger.recordItem('r1', 'r1/t1/0', 'OK')) console.log('first time');
 */
export interface RunLedger {
  createRun(summary: Omit<RunSummary, 'recorded' | 'verdicts' | 'costUsd' | 'updatedAt'>): Promise<void>;
  getRun(runId: string): Promise<RunSummary | undefined>;
  /** The run's status alone (one read of the run row, none of its counters); undefined for an unknown run. */
  runStatus(runId: string): Promise<RunStatus | undefined>;
  listRuns(): Promise<RunSummary[]>;
  /** Counts the item once; returns false when it was already counted. */
  recordItem(runId: string, itemId: string, verdict: Verdict): Promise<boolean>;
  /**
   * Counts several items of one run at once (a judge invocation's records), each as
   * `recordItem` would: per item, in order, true when counted now, false when counted before
   * (an id repeated within `items` counts once, its first place answers true). A duplicate never
   * holds its batch-mates back, and a failure leaves each item counted once or not at all (a
   * retry counts the rest). The cloud ledger writes them in as few transactions as DynamoDB allows.
   */
  recordItems(runId: string, items: readonly ItemCount[]): Promise<boolean[]>;
  /**
   * Moves a counted item from one verdict to another (an SE sample re-run on resume):
   * conditional on its counted verdict being `from`, so a repeated call changes nothing.
   * Returns false when the item is not counted with `from`.
   */
  reviseItem(runId: string, itemId: string, from: Verdict, to: Verdict): Promise<boolean>;
  /** Item ids already counted (for resume). */
  recordedItems(runId: string): Promise<Set<string>>;
  /**
   * The verdict the ledger counts for one item (its item row; an eventually consistent read,
   * so a count made an instant ago may be missed); undefined when not counted or the run is
   * unknown. A cheap first look (the cloud's generate, stages.ts); absent: the stage reads the
   * stored record instead.
   */
  countedVerdict?(runId: string, itemId: string): Promise<Verdict | undefined>;
  /**
   * Adds `usd` to the run's spend, no cap (an uncapped run's call, once billed). With `bookingId`,
   * at most once per id: a repeated booking (a redelivered message, a retried request) changes
   * nothing. The cloud ledger spreads these over the run's shards (no hot key).
   */
  addCost(runId: string, usd: number, bookingId?: string): Promise<void>;
  /**
   * Books several settlements of one run at once (a generate invocation's model calls), each as
   * `addCost` with its id would: at most once per id (an id booked before, or repeated within
   * `bookings`, adds nothing), a booking made before never holding its batch-mates back, and a
   * failure leaving each booked once or not at all (a retry books the rest). The cloud ledger
   * writes them in as few transactions as DynamoDB allows, one counter update each.
   */
  addCosts(runId: string, bookings: readonly CostBooking[]): Promise<void>;
  /**
   * Atomically adds `usd` to the run's spend iff the new total is ≤ `capUsd` (always when
   * `capUsd` is null) and returns whether it did. A negative `usd` (a reservation settled
   * below its projection) always fits. The one primitive the cost guard needs, locally and
   * across Lambda workers. With `bookingId`, at most once per id: a booking already made
   * answers true and changes nothing.
   */
  trySpend(runId: string, usd: number, capUsd: number | null, bookingId?: string): Promise<boolean>;
  /**
   * Sets the run's status (and reason; none clears it). A cancelled run stays cancelled:
   * a stage that decided to move it on before the cancel landed (plan setting `running`,
   * aggregate `completed`) leaves it as it is — atomically, in one conditional write.
   */
  setStatus(runId: string, status: RunStatus, reason?: string): Promise<void>;
  /**
   * Sets the run's status (and reason) only if it is one of `from` now — one conditional write,
   * so of two callers racing from the same status exactly one wins. Returns whether it did
   * (false for an unknown run too). `remote resume` claims an ended run this way.
   */
  claimStatus(runId: string, from: readonly RunStatus[], status: RunStatus, reason?: string): Promise<boolean>;
}

/**
 * A SQL statement with `?` placeholders and the string values bound to them, in order: DuckDB
 * binds them as a prepared statement, Athena as `ExecutionParameters` (placeholders only in
 * WHERE clauses, as Athena requires). Values never become SQL text of ours.
 */
export interface SqlStatement {
  text: string;
  params: readonly string[];
}

/**
 * SQL over the `records` and `metrics` views (DESIGN §5). The SQL is kept to the subset
 * DuckDB and Athena (Trino) share. A plain string is a statement without parameters (the
 * user's own SQL from `polyeval query`).
 * @example
 * const rows = await query.sql({ text: 'SELECT metric, value FROM metrics WHERE run_id = ?', params: ['r1'] });
 */
export interface ResultsQuery {
  sql(query: string | SqlStatement): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/**
 * One sample to execute: the task's scoring material and the model's code, and the toolchain
 * options of its run for its language (`toolchainOptionsByLanguage`): they travel with the
 * job, so two jobs with different options can run at once in one executor.
 */
export interface ExecutionJob<T extends { kind: string } = Task> {
  /** The task's scorer kind (its scorer's `execute` judges the job). */
  scorer: T['kind'];
  task: T;
  language: LanguageId;
  code: string;
  timeScale?: number;
  toolchain?: ToolchainOptions;
}

/** Toolchain facts recorded in the manifest. */
export interface ToolchainInfo {
  language: LanguageId;
  compiler?: string;
  version?: string;
  flags?: string[];
  available: boolean;
  detail?: string;
}

/**
 * Scores one code sample by running it (io-tests / unit-tests). Never throws for what
 * the program did: that is a verdict. A harness failure is verdict `SE`.
 * @example
 * const outcome = await executor.execute({ scorer: 'unit-tests', task, language: 'kotlin', code });
 */
export interface Executor {
  execute(job: ExecutionJob): Promise<ScoreOutcome>;
  /**
   * The toolchains as a run with these options per language would use them (compiler flags
   * included): of `languages` only when given (a run asks for its own: probing a toolchain it
   * does not use, such as starting `javac` for a Python run, costs start-up time), else of all.
   */
  toolchains(options?: Readonly<Record<LanguageId, ToolchainOptions>>, languages?: ReadonlySet<LanguageId>): Promise<ToolchainInfo[]>;
  /**
   * Optional hint that samples of these languages will come: the executor may start slow
   * set-up now (the Kotlin compile server) so it overlaps planning and generation. Never
   * throws and never waits; a failure surfaces, as before, on the first `execute`.
   */
  prepare?(languages: readonly LanguageId[]): void;
  /**
   * Samples the executor takes beyond its concurrency, after `prepare`: it compiles them
   * ahead of their runs (Kotlin batches the compilations queued meanwhile), so a scoring
   * stage should keep this many more `execute` calls in flight. 0 or absent: none.
   */
  compileAhead?(): number;
  close(): Promise<void>;
}

/**
 * Run lifecycle events (`RunCompleted` after aggregation) for whoever subscribes:
 * notifications, dashboards, the next stage of a sweep. Cloud runs only (EventBridge).
 * @example
 * await events.publish('RunCompleted', { run_id: 'r1', status: 'completed' });
 */
export interface EventPublisher {
  publish(detailType: string, detail: Record<string, unknown>): Promise<void>;
}

/**
 * Sets a run's planned item count. The cloud api creates a run's ledger row before its dataset
 * is loaded (items 0); plan fills the count in, and no work item is sent before, so the
 * completion check (recorded == items) can never fire early. Cloud runs only (DynamoDB).
 * TODO: a `setItems` on RunLedger (both adapters) would replace this port.
 */
export type SetRunItems = (runId: string, items: number) => Promise<void>;

export type { MetricRow };
