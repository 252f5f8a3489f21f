/**
 * The toolchains a cloud run was judged with (DESIGN §7: every manifest records compiler names,
 * versions and flags). Plan cannot see them (the executors run in their own images), so the
 * judges record them: the first item of a run in each language a judge container scores writes
 * `runs/<run>/toolchains/<language>.json` — what the container's own sandbox reports for that
 * language with the job's toolchain options (`Executor.toolchains`), in the image whose runner
 * compiles and runs the programs (the same image: infra/runners.ts builds the runner from the
 * judge's image asset and build arguments). The write is create-only (`If-None-Match: *`), so
 * the first judge's record stands and a redelivered or concurrent item never rewrites it; each
 * container remembers what it wrote (or found), so it costs one conditional PUT per run,
 * language and warm container, never one per item.
 *
 * Readers (the aggregate's report, the API's run view) merge the records into the manifest's
 * `toolchains` ({@link withRecordedToolchains}); the plan's manifest itself is never rewritten.
 * A record that is missing or unreadable never fails anything: the language is shown as not
 * recorded.
 */
import { z } from 'zod';
import type { ToolchainOptions } from '#core/languages/index.ts';
import type { BlobStore, Executor, ToolchainInfo } from '#core/ports.ts';
import { parseStored, schemaVersionField, storedJson, type Manifest } from '#core/run/index.ts';

/** Keys this module adds to DESIGN §5 (beside `runs/<run>/manifest.json`). */
export const toolchainKeys = {
  /** What the judges recorded for one language of the run. */
  language: (runId: string, language: string) => `runs/${runId}/toolchains/${language}.json`,
  prefix: (runId: string) => `runs/${runId}/toolchains/`,
  /** The aggregate's kept copy of every language's record, beside the kept manifest (`runs/` may expire). */
  kept: (runId: string) => `results/runs/${runId}/toolchains.json`,
};

const ToolchainInfoSchema = z.object({
  language: z.string().min(1),
  compiler: z.string().optional(),
  version: z.string().optional(),
  flags: z.array(z.string()).optional(),
  available: z.boolean(),
  detail: z.string().optional(),
});

/** One language's record, as a judge wrote it. */
export const RecordedToolchainSchema = z.object({
  schema_version: schemaVersionField,
  run_id: z.string(),
  language: z.string().min(1),
  recorded_at: z.string(),
  /** The executor image (POLYEVAL_EXECUTOR_IMAGE) and the function or task that recorded it, when known. */
  image: z.string().optional(),
  recorded_by: z.string().optional(),
  toolchain: ToolchainInfoSchema,
});
export type RecordedToolchain = z.output<typeof RecordedToolchainSchema>;

const KeptSchema = z.object({ schema_version: schemaVersionField, run_id: z.string(), toolchains: z.array(RecordedToolchainSchema) });

/** Runs × languages a container remembers having recorded (a nightly sweep's runs fit many times over). */
export const REMEMBERED_RECORDS = 256;
/** Attempts a container makes at one run's language (a failed one is tried again with a later item, this many times in all). */
export const RECORD_ATTEMPTS = 3;

export interface ToolchainRecorderOptions {
  store: BlobStore;
  clock: () => Date;
  /** The executor image's id (POLYEVAL_EXECUTOR_IMAGE). */
  image?: string;
  /** The function or task recording (AWS_LAMBDA_FUNCTION_NAME), for the record. */
  recordedBy?: string;
  /** A record that could not be written (never fatal). */
  log?: (message: string, detail: Record<string, unknown>) => void;
}

/**
 * Records, once per run and language in this container, the toolchain an executor judges with.
 * @example
 * const recorder = new ToolchainRecorder({ store, clock: () => new Date() });
 * const executor = recorder.over(await sandbox.get(), runId); // its first python job records runs/<run>/toolchains/python.json
 */
export class ToolchainRecorder {
  readonly #options: ToolchainRecorderOptions;
  /** Run × language → the attempt (in insertion order, the oldest forgotten first). */
  readonly #done = new Map<string, Promise<void>>();
  /** Run × language → failed attempts so far. */
  readonly #failures = new Map<string, number>();

  constructor(options: ToolchainRecorderOptions) {
    this.#options = options;
  }

  /** `executor`, recording the toolchain of each job's language for `runId` before the job runs. */
  over(executor: Executor, runId: string): Executor {
    return {
      execute: async (job) => {
        await this.record(executor, runId, job.language, job.toolchain ?? {});
        return executor.execute(job);
      },
      toolchains: (options, languages) => executor.toolchains(options, languages),
      close: () => executor.close(),
      ...(executor.prepare ? { prepare: (languages: Parameters<NonNullable<Executor['prepare']>>[0]) => executor.prepare?.(languages) } : {}),
      ...(executor.compileAhead ? { compileAhead: () => executor.compileAhead?.() ?? 0 } : {}),
    };
  }

  /** Records `language`'s toolchain for `runId` unless this container did already. Never throws. */
  record(executor: Executor, runId: string, language: string, options: ToolchainOptions): Promise<void> {
    const key = `${runId}\n${language}`;
    const known = this.#done.get(key);
    if (known) return known;
    const attempt = this.#write(executor, runId, language, options).then((written) => {
      if (written) return;
      const failures = (this.#failures.get(key) ?? 0) + 1;
      this.#failures.set(key, failures);
      // Tried again with the run's next item in this language, a few times: never once per item.
      if (failures < RECORD_ATTEMPTS && this.#done.get(key) === attempt) this.#done.delete(key);
    });
    this.#done.set(key, attempt);
    for (const oldest of this.#done.keys()) {
      if (this.#done.size <= REMEMBERED_RECORDS) break;
      this.#done.delete(oldest);
      this.#failures.delete(oldest);
    }
    return attempt;
  }

  /** false when it failed (logged); true when recorded, found recorded, or nothing to record. */
  async #write(executor: Executor, runId: string, language: string, options: ToolchainOptions): Promise<boolean> {
    const { store, clock, image, recordedBy, log } = this.#options;
    const key = toolchainKeys.language(runId, language);
    try {
      const [toolchain] = (await executor.toolchains({ [language]: options }, new Set([language]))).filter((t) => t.language === language);
      if (toolchain === undefined) return true; // an executor without this language: its jobs are SE, nothing to record
      // A probe that failed here (no javac, a broken interpreter, a probe timed out under load) is
      // this container's state, not the image's: written create-only, it would stand for the run in
      // place of what a sound judge reports. Tried again like a failed write; never recorded.
      if (!toolchain.available) {
        log?.('toolchain not recorded: this container found it unavailable (the item is judged all the same)', {
          key: store.locate(key),
          detail: toolchain.detail ?? '',
        });
        return false;
      }
      const record: Omit<RecordedToolchain, 'schema_version'> = {
        run_id: runId,
        language,
        recorded_at: clock().toISOString(),
        ...(image ? { image } : {}),
        ...(recordedBy ? { recorded_by: recordedBy } : {}),
        toolchain,
      };
      const body = storedJson(record, 2);
      // Create-only: the first judge's record stands (a store without conditional writes: look, then write the same facts).
      if (store.putIfAbsent) await store.putIfAbsent(key, body, 'application/json');
      else if (!(await store.exists(key))) await store.put(key, body, 'application/json');
      return true;
    } catch (error) {
      log?.('toolchain not recorded (the item is judged all the same)', { key: store.locate(key), error: (error as Error).message });
      return false;
    }
  }
}

/** What the judges recorded for a run, language by language, and the records that could not be read. */
export interface RecordedToolchains {
  records: RecordedToolchain[];
  /** `<locator>: <why>` of each record skipped (unreadable, or not this run's). */
  problems: string[];
  /** Read from the aggregate's kept copy (the judges' records expired with `runs/`). */
  kept: boolean;
}

/**
 * The run's recorded toolchains: the judges' records under `runs/<run>/toolchains/`, else the
 * aggregate's kept copy (after `runs/` expired). Never throws: a bad record is skipped and
 * named in `problems`.
 */
export async function readRecordedToolchains(store: BlobStore, runId: string): Promise<RecordedToolchains> {
  const problems: string[] = [];
  const records: RecordedToolchain[] = [];
  let keys: string[] = [];
  try {
    keys = (await store.list(toolchainKeys.prefix(runId))).filter((k) => k.endsWith('.json'));
  } catch (error) {
    problems.push(`${store.locate(toolchainKeys.prefix(runId))}: ${(error as Error).message}`);
  }
  for (const key of keys) {
    const record = await readOne(store, key, problems);
    if (record === undefined) continue;
    if (record.run_id !== runId || key !== toolchainKeys.language(runId, record.language) || record.toolchain.language !== record.language)
      problems.push(`${store.locate(key)}: holds the record of ${record.run_id}/${record.language}`);
    else records.push(record);
  }
  if (keys.length > 0) return { records, problems, kept: false };
  return { records: await readKept(store, runId, problems), problems, kept: true };
}

async function readOne(store: BlobStore, key: string, problems: string[]): Promise<RecordedToolchain | undefined> {
  try {
    const text = await store.getText(key);
    return text === undefined ? undefined : parseStored(RecordedToolchainSchema, text, store.locate(key));
  } catch (error) {
    problems.push(`${store.locate(key)}: ${(error as Error).message}`);
    return undefined;
  }
}

async function readKept(store: BlobStore, runId: string, problems: string[]): Promise<RecordedToolchain[]> {
  const key = toolchainKeys.kept(runId);
  try {
    const text = await store.getText(key);
    return text === undefined ? [] : parseStored(KeptSchema, text, store.locate(key)).toolchains.filter((r) => r.run_id === runId);
  } catch (error) {
    problems.push(`${store.locate(key)}: ${(error as Error).message}`);
    return [];
  }
}

/** Keeps the run's records beside the kept manifest (`results/runs/<run>/toolchains.json`), for readers after `runs/` expired. */
export async function keepRecordedToolchains(store: BlobStore, runId: string, recorded: RecordedToolchains): Promise<void> {
  if (recorded.kept || recorded.records.length === 0) return;
  const toolchains = recorded.records.map(({ schema_version: _version, ...record }) => record);
  await store.put(toolchainKeys.kept(runId), storedJson({ run_id: runId, toolchains }, 2), 'application/json');
}

/**
 * The manifest as readers show it: its own toolchains (a local run's; none for a cloud run's
 * plan) and, for every other language, what the judges recorded. The stored manifest is unchanged.
 */
export function withRecordedToolchains(manifest: Manifest, recorded: readonly ToolchainInfo[]): Manifest {
  const own = new Set(manifest.toolchains.map((t) => t.language));
  const added = recorded.filter((t) => !own.has(t.language));
  if (added.length === 0) return manifest;
  return { ...manifest, toolchains: [...manifest.toolchains, ...added].sort((a, b) => a.language.localeCompare(b.language)) };
}
