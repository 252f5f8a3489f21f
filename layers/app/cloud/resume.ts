/**
 * `polyeval remote resume <run>`: what `polyeval resume` does locally, for a cloud run that
 * has ended — its SE items (the harness failed on them) and its missing ones run again, by
 * the same rules (core's lifecycle.ts resumeDecisions), and the run is aggregated again once
 * they are recorded.
 *
 * - the api ({@link requestResume}) checks the run and sends a plan message carrying `resume`
 *   (when it was asked: the resume's name);
 * - plan ({@link resumeChunk}) writes the resume's marker (`runs/<run>/resumes/<name>.json`),
 *   decides every planned item, sets the run back to `running` when any is to run again, and
 *   sends the items to generate, an SE with `previousVerdict` so its new record moves its count.
 *   They travel in one resume part of their own (index {@link RESUME_PART_BASE} + the resume's
 *   ordinal): the stage that records its last item asks for the run's aggregate
 *   ({@link countResumed}), since the ledger counted the SEs already and its count cannot tell
 *   when they are done. That aggregate `recompact`s: a run already completed is aggregated
 *   again — another delivery (a redriven dead letter, a failed run's queued work) may have
 *   aggregated it with the old SE records while the resume ran.
 * - the records parts are never deleted (a resume that stops again at its cost cap, or fails,
 *   would leave them gone): any aggregate of a run with a resume marker writes every part again
 *   from the item records (record-parts.ts wasResumed), so a re-run record replaces the old
 *   row in place, under the same key, once — the watchdog's aggregate of a resume whose items
 *   were lost included.
 */
import { InputError } from '#core/errors.ts';
import type { BlobStore, RunLedger, RunStatus, WorkQueue } from '#core/ports.ts';
import { storedJson } from '#core/run/index.ts';
import { itemId } from '#core/run/index.ts';
import { itemToSend, recordsOf, resumeDecisions } from '#core/run/index.ts';
import { readManifest } from '#core/run/index.ts';
import { replanItems, type WorkItem } from '#core/run/index.ts';
import type { PartCounter, PartSlot } from '#aws/index.ts';
import { versioned, type AggregateMessage, type CloudWorkItem, type PlanMessage } from './messages.ts';
import { snapshotAsLoaded, type PlanDeps, type PlanOutcome } from './plan.ts';
import { resumeKeys } from './record-parts.ts';
import { RunNotFoundError, checkRunId } from './queries.ts';
import { RunNotActiveError } from './run-control.ts';

/** Part indexes from here on count a resume's items (plan parts stay below: 90,000 chunks of 1,000 items). */
export const RESUME_PART_BASE = 90_000;

/** Statuses a run is resumed from: it ended without being cancelled. */
const RESUMABLE: readonly RunStatus[] = ['completed', 'completed_with_missing', 'stopped', 'failed'];

export interface ResumeRequestDeps {
  ledger: RunLedger;
  planQueue: Pick<WorkQueue<PlanMessage>, 'send'>;
  clock: () => Date;
}

export interface ResumeRequested {
  run_id: string;
  /** The resume's name (when it was asked). */
  resume: string;
  /** The run's status when asked: plan sets it to `running` once it sends items again (none: it stays). */
  status: RunStatus;
}

/** POST /runs/{id}/resume: 404 unknown run, 409 a run still going or cancelled. */
export async function requestResume(deps: ResumeRequestDeps, runId: string): Promise<ResumeRequested> {
  checkRunId(runId);
  const run = await deps.ledger.getRun(runId);
  if (run === undefined) throw new RunNotFoundError(runId);
  if (!RESUMABLE.includes(run.status))
    throw new RunNotActiveError(
      runId,
      run.status,
      `run "${runId}" is ${run.status}: only a run that ended (completed, completed_with_missing, stopped, failed) can be resumed`,
    );
  if (run.items === 0) throw new RunNotActiveError(runId, run.status, `run "${runId}" was never planned: start it again`);
  const name = deps.clock().toISOString().replace(/[:.]/g, '-');
  await deps.planQueue.send([{ id: `${runId}/resume/${name}`, body: versioned({ runId, offset: 0, resume: name }) }]);
  return { run_id: runId, resume: name, status: run.status };
}

/** Whether an item's part is a resume's (counted by {@link countResumed}, not by its plan part). */
export function isResumePart(part: PartSlot | undefined): part is PartSlot {
  return part !== undefined && part.index >= RESUME_PART_BASE;
}

/** Counts a resumed item; the one that completes the resume asks for the run's aggregate, recompacted. */
export async function countResumed(counter: PartCounter, aggregateQueue: Pick<WorkQueue<AggregateMessage>, 'send'>, item: CloudWorkItem): Promise<boolean> {
  if (!isResumePart(item.part) || !(await counter.count(item.runId, item.part))) return false;
  await aggregateQueue.send([{ id: `${item.runId}/resume/${item.part.index}`, body: versioned({ runId: item.runId, recompact: true }) }]);
  return true;
}

/** plan, for a resume message: decides every planned item and sends the SE and missing ones again. */
export async function resumeChunk(deps: PlanDeps, message: PlanMessage): Promise<PlanOutcome> {
  const { runId } = message;
  const name = message.resume ?? '';
  const manifest = await readManifest(deps.store, runId);
  if (manifest === undefined) {
    const reason = `run ${runId} has no manifest: it was never planned, start it again`;
    await deps.ledger.setStatus(runId, 'failed', reason);
    return { status: 'failed', runId, reason };
  }
  const loaded = await snapshotAsLoaded(deps.store, manifest);
  const provider = await deps.createProvider(manifest.model.spec);
  let items: WorkItem[];
  try {
    await provider.prepare?.(new Set(loaded.tasks.map((t) => t.id)));
    ({ items } = replanItems(manifest, loaded, provider));
  } finally {
    await provider.close?.();
  }
  const ordinal = await markResume(deps.store, runId, name);
  const decisions = await resumeDecisions(recordsOf(deps.store, deps.ledger), runId, items);
  const sent = decisions.map(itemToSend).filter((item): item is WorkItem => item !== undefined);
  // Nothing to run again: the run stays as it ended.
  if (sent.length === 0) return { status: 'enqueued', runId, offset: 0, sent: 0, total: items.length, fannedOut: 0 };
  await deps.ledger.setStatus(runId, 'running', `resumed (${name}): ${sent.length} SE or missing item(s) run again`);
  const index = RESUME_PART_BASE + ordinal;
  await deps.generateQueue.send(
    sent.map((item, slot) => ({ id: itemId(runId, item.taskId, item.sample), body: versioned({ ...item, part: { index, slot, size: sent.length } }) })),
  );
  return { status: 'enqueued', runId, offset: 0, sent: sent.length, total: items.length, fannedOut: 0 };
}

/** Writes the resume's marker (kept when redelivered) and returns its ordinal among the run's resumes. */
async function markResume(store: BlobStore, runId: string, name: string): Promise<number> {
  if (!name) throw new InputError(`a resume of run ${runId} without a name`);
  if (!(await store.exists(resumeKeys.marker(runId, name))))
    await store.put(resumeKeys.marker(runId, name), storedJson({ run_id: runId, resume: name }), 'application/json');
  const names = (await store.list(resumeKeys.prefix(runId))).sort();
  return names.indexOf(resumeKeys.marker(runId, name));
}
