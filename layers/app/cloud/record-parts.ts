/**
 * Records parts: how a cloud run of any size is aggregated without reading its items one by
 * one in a single function.
 *
 * - plan writes, per chunk, the part's manifest (`runs/<run>/parts/<index>.json`: the items of
 *   the chunk in order) and sends every item with its {@link PartRef};
 * - the stage that records an item counts it in its part (DynamoDB, exactly once per slot);
 *   the one that counts the part's last item sends `{ runId, part }` to the aggregate queue;
 * - aggregate writes that part's records as `results/records/…/part-<index>.parquet` (≤ one
 *   chunk of item reads), while the rest of the run is still running;
 * - the final aggregate reads the parts (a few dozen files for 50k items), compacting here
 *   only a part whose file is missing or short, and lists planned items never recorded.
 *
 * Compaction is deterministic per part (same key, same rows), so duplicates are harmless.
 */
import pLimit from 'p-limit';
import { z } from 'zod';
import { HarnessError } from '#core/errors.ts';
import type { BlobStore, WorkQueue } from '#core/ports.ts';
import { parseStored, schemaVersionField, storedJson } from '#core/run/index.ts';
import { parseItemDocument } from '#core/run/index.ts';
import { itemId, keys } from '#core/run/index.ts';
import type { Manifest } from '#core/run/index.ts';
import { decodeRecords, encodeRecords } from '#core/run/index.ts';
import type { RunRecord } from '#core/types.ts';
import { countTies, type TieCount } from '#core/judging/index.ts';
import type { PartCounter } from '#aws/index.ts';
import { versioned, type AggregateMessage, type CloudWorkItem } from './messages.ts';

/** Item reads in flight while a part is compacted. */
const READ_CONCURRENCY = 32;

export const partKeys = {
  prefix: (runId: string) => `runs/${runId}/parts/`,
  manifest: (runId: string, part: number) => `runs/${runId}/parts/${String(part).padStart(5, '0')}.json`,
  /** A part's tied likert items (its records carry no choice scores), beside the parts, not among them. */
  ties: (runId: string, part: number) => `runs/${runId}/part-ties/${String(part).padStart(5, '0')}.json`,
};

/** A run's `remote resume` markers (resume.ts): a run that has one is recompacted whole when aggregated (aggregate.ts). */
export const resumeKeys = {
  prefix: (runId: string) => `runs/${runId}/resumes/`,
  marker: (runId: string, name: string) => `runs/${runId}/resumes/${name}.json`,
};

/** Whether the run was ever resumed: its records parts may hold records a resume replaced since. */
export async function wasResumed(store: BlobStore, runId: string): Promise<boolean> {
  return (await store.list(resumeKeys.prefix(runId))).length > 0;
}

const TieCountSchema = z.object({ scored: z.number().int().min(0), tied: z.number().int().min(0) }).loose();

/** The items of one part, in plan order (slot i is items[i]). */
/** A records part's manifest (`runs/<run>/parts/<index>.json`): the items of one plan chunk, in slot order. */
const PartManifestSchema = z
  .object({
    schema_version: schemaVersionField,
    run_id: z.string().min(1),
    part: z.number().int().min(0),
    items: z.array(z.object({ taskId: z.string().min(1), sample: z.number().int().min(0) }).loose()),
  })
  .loose();
export type PartManifest = z.infer<typeof PartManifestSchema>;

/**
 * The one reader of a stored part manifest's text (`origin`: its key or path, for the error).
 * @throws CorruptRecordError naming `origin` and the field that does not match.
 */
export function parsePartManifest(text: string, origin: string): PartManifest {
  return parseStored(PartManifestSchema, text, origin);
}

export async function writePartManifest(
  store: BlobStore,
  runId: string,
  part: number,
  items: readonly Pick<CloudWorkItem, 'taskId' | 'sample'>[],
): Promise<void> {
  const doc: PartManifest = { run_id: runId, part, items: items.map((i) => ({ taskId: i.taskId, sample: i.sample })) };
  await store.put(partKeys.manifest(runId, part), storedJson(doc), 'application/json');
}

export async function readPartManifests(store: BlobStore, runId: string): Promise<PartManifest[]> {
  const out: PartManifest[] = [];
  for (const key of await store.list(partKeys.prefix(runId))) {
    const text = await store.getText(key);
    if (text === undefined) continue;
    out.push(parsePartManifest(text, store.locate(key)));
  }
  return out.sort((a, b) => a.part - b.part);
}

/**
 * After an item is recorded: counts it in its part and, when the part is complete, asks
 * aggregate to write the part. Items sent before parts existed carry no part: nothing to count.
 */
export async function countInPart(counter: PartCounter, aggregateQueue: Pick<WorkQueue<AggregateMessage>, 'send'>, item: CloudWorkItem): Promise<boolean> {
  if (item.part === undefined) return false;
  if (!(await counter.count(item.runId, item.part))) return false;
  await aggregateQueue.send([{ id: `${item.runId}/part/${item.part.index}`, body: versioned({ runId: item.runId, part: item.part.index }) }]);
  return true;
}

export interface CompactedPart {
  records: RunRecord[];
  /** Item ids of the part that have no stored record. */
  missing: string[];
  /** Its likert items whose choices all scored the same (counted from the item documents). */
  ties: TieCount;
}

/** Reads the recorded items of one part and writes its Parquet file (records in slot order). */
export async function compactPart(store: BlobStore, manifest: Manifest, part: PartManifest): Promise<CompactedPart> {
  const runId = manifest.run_id;
  const limit = pLimit(READ_CONCURRENCY);
  const docs = await Promise.all(
    part.items.map((entry) =>
      limit(async () => {
        const key = keys.item(runId, entry.taskId, entry.sample);
        const text = await store.getText(key);
        return text === undefined ? undefined : parseItemDocument(text, store.locate(key));
      }),
    ),
  );
  const ties = countTies(docs.flatMap((d) => (d?.outcome.choiceLogprobs ? [d.outcome.choiceLogprobs] : [])));
  if (ties.scored > 0) await store.put(partKeys.ties(runId, part.part), storedJson(ties), 'application/json');
  const records: RunRecord[] = [];
  const missing: string[] = [];
  docs.forEach((doc, slot) => {
    const record = doc?.record;
    const entry = part.items[slot];
    if (record !== undefined) records.push(record);
    else if (entry !== undefined) missing.push(itemId(runId, entry.taskId, entry.sample));
  });
  await store.put(keys.recordsPart(manifest.benchmark.id, runId, part.part), encodeRecords(records), 'application/vnd.apache.parquet');
  return { records, missing, ties };
}

/**
 * Whether the part's Parquet file is stored holding a record for every item of the part — the
 * rule readRunRecords trusts a part file by. A part message that comes again (a redelivered
 * item of a complete part says so again: dynamo-part-counter.ts; a duplicate SQS delivery)
 * then costs one GET, not one per item (issue 35: at 10,000 items such repeats read every
 * item ~4 times over).
 */
export async function partFileComplete(store: BlobStore, manifest: Manifest, part: PartManifest): Promise<boolean> {
  const bytes = await store.get(keys.recordsPart(manifest.benchmark.id, manifest.run_id, part.part));
  if (bytes === undefined) return false;
  return (await decodeRecords(bytes, { run_id: manifest.run_id, benchmark: manifest.benchmark.id })).length === part.items.length;
}

/**
 * Every record of a run from its parts: a part file holding all its items is read as it is;
 * a missing or short one is compacted now. A run without part manifests (planned before
 * parts existed) is a HarnessError here; cloud-aggregate reads such a run item by item.
 */
/**
 * The plan chunks of a run of `items` items that have no part manifest — their plan message
 * was lost (dead-lettered, dropped) before the chunk was enqueued, so none of their items is
 * listed anywhere else — named by that plan message's id (`<run>/plan/<offset>`, plan.ts
 * laterChunks). Chunks are as long as part 0 (plan writes part 0 before it fans out).
 */
export function unplannedChunks(runId: string, parts: readonly PartManifest[], items: number, chunkSize: number): string[] {
  // Every item listed (a batch run's last part may take a remainder below a job's minimum: plan.ts chunkEnd).
  if (parts.reduce((sum, p) => sum + p.items.length, 0) === items) return [];
  const size = parts.find((p) => p.part === 0)?.items.length || chunkSize;
  const planned = new Set(parts.map((p) => p.part));
  const out: string[] = [];
  for (let index = 0; index * size < items; index++) if (!planned.has(index)) out.push(`${runId}/plan/${index * size}`);
  return out;
}

export async function readRunRecords(
  store: BlobStore,
  manifest: Manifest,
  /** recompact: every part is compacted again, its stored file not trusted (a resume re-ran some of its items). */
  options: { recompact?: boolean } = {},
): Promise<CompactedPart & { parts: PartManifest[] }> {
  const runId = manifest.run_id;
  const parts = await readPartManifests(store, runId);
  if (parts.length === 0) throw new HarnessError(`run ${runId} has no part manifests under ${store.locate(partKeys.prefix(runId))}`);
  const records: RunRecord[] = [];
  const missing: string[] = [];
  const ties: TieCount = { scored: 0, tied: 0 };
  const addTies = (t: TieCount): void => {
    ties.scored += t.scored;
    ties.tied += t.tied;
  };
  for (const part of parts) {
    const bytes = options.recompact ? undefined : await store.get(keys.recordsPart(manifest.benchmark.id, runId, part.part));
    const stored = bytes === undefined ? [] : await decodeRecords(bytes, { run_id: runId, benchmark: manifest.benchmark.id });
    if (stored.length === part.items.length) {
      records.push(...stored);
      const text = await store.getText(partKeys.ties(runId, part.part));
      if (text !== undefined) addTies(parseStored(TieCountSchema, text, store.locate(partKeys.ties(runId, part.part))));
      continue;
    }
    const compacted = await compactPart(store, manifest, part);
    records.push(...compacted.records);
    missing.push(...compacted.missing);
    addTies(compacted.ties);
  }
  return { records, missing, parts, ties };
}
