/**
 * `polyeval remote resume <run>`: what `polyeval resume` does locally, for a cloud run that
 * has ended — its SE items (the harness failed on them) and its missing ones run again, by
 * the same rules (core's lifecycle.ts resumeDecisions), and the run is aggregated again once
 * they are recorded.
 *
 * - the api ({@link requestResume}) checks the run, claims it (`running`, one resume at a time)
 *   and sends a plan message carrying `resume` (when it was asked: the resume's name) and
 *   `resumedFrom` (how the run ended);
 * - plan ({@link resumeChunk}) writes the resume's marker (`runs/<run>/resumes/<name>.json`),
 *   decides every planned item, gives the run back as it ended when none is to run again (or
 *   the resume is refused: a bad input), else sends the items to generate, an SE with `previousVerdict` so its new record moves its count.
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
import { RESUMABLE_STATUSES, versioned, type AggregateMessage, type CloudWorkItem, type PlanMessage } from './messages.ts';
import { snapshotAsLoaded, type PlanDeps, type PlanOutcome } from './plan.ts';
import { resumeKeys } from './record-parts.ts';
import { RunNotFoundError, checkRunId } from './queries.ts';
import { RunNotActiveError } from './run-control.ts';

/** Part indexes from here on count a resume's items (plan parts stay below: 90,000 chunks of 1,000 items). */
export const RESUME_PART_BASE = 90_000;

const RESUMABLE: readonly RunStatus[] = RESUMABLE_STATUSES;

export interface ResumeRequestDeps {
  ledger: RunLedger;
  planQueue: Pick<WorkQueue<PlanMessage>, 'send'>;
  clock: () => Date;
}

export interface ResumeRequested {
  run_id: string;
  /** The resume's name (when it was asked). */
  resume: string;
  /** The run's status when asked (the request then holds it `running` until plan has decided). */
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
  // One resume at a time: the run moves to `running` in one conditional write, so of two
  // requests racing from the same ended run one wins and the other is told the run is running
  // (two resumes at once would re-send the same items and could share a resume part).
  const from = { status: run.status as (typeof RESUMABLE_STATUSES)[number], ...(run.reason === undefined ? {} : { reason: run.reason }) };
  if (!(await deps.ledger.claimStatus(runId, [from.status], 'running', claimReason(name)))) {
    const now = (await deps.ledger.runStatus(runId)) ?? run.status;
    throw new RunNotActiveError(runId, now, `run "${runId}" is ${now}: another resume or stage moved it just now; ask again once it has ended`);
  }
  try {
    await deps.planQueue.send([{ id: `${runId}/resume/${name}`, body: versioned({ runId, offset: 0, resume: name, resumedFrom: from }) }]);
  } catch (error) {
    // Nothing was sent: the run goes back to how it ended, so it can be resumed again.
    await deps.ledger.claimStatus(runId, ['running'], from.status, from.reason);
    throw error;
  }
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
  let items: WorkItem[];
  try {
    const loaded = await snapshotAsLoaded(deps.store, manifest);
    const provider = await deps.createProvider(manifest.model.spec);
    try {
      await provider.prepare?.(new Set(loaded.tasks.map((t) => t.id)));
      ({ items } = replanItems(manifest, loaded, provider));
    } finally {
      await provider.close?.();
    }
  } catch (error) {
    // A refusal (e.g. a key host the deployment no longer allows) would only be retried into the
    // DLQ, leaving the run claimed `running` until the watchdog: give it back, saying why.
    if (!(error instanceof InputError)) throw error;
    const reason = `resume ${name} refused: ${error.message}`;
    await giveBack(deps.ledger, runId, name, message.resumedFrom, reason);
    return { status: 'skipped', runId, reason };
  }
  const ordinal = await markResume(deps.store, runId, name);
  const decisions = await resumeDecisions(recordsOf(deps.store, deps.ledger), runId, items);
  const sent = decisions.map(itemToSend).filter((item): item is WorkItem => item !== undefined);
  // Nothing to run again: the run goes back to how it ended (the api claimed it `running`).
  if (sent.length === 0) {
    await giveBack(deps.ledger, runId, name, message.resumedFrom);
    return { status: 'enqueued', runId, offset: 0, sent: 0, total: items.length, fannedOut: 0 };
  }
  await deps.ledger.setStatus(runId, 'running', `resumed (${name}): ${sent.length} SE or missing item(s) run again`);
  const index = RESUME_PART_BASE + ordinal;
  await deps.generateQueue.send(
    sent.map((item, slot) => ({ id: itemId(runId, item.taskId, item.sample), body: versioned({ ...item, part: { index, slot, size: sent.length } }) })),
  );
  return { status: 'enqueued', runId, offset: 0, sent: sent.length, total: items.length, fannedOut: 0 };
}

/** The run's reason while a resume's claim holds it `running`, until plan has decided. */
function claimReason(name: string): string {
  return `resume ${name} requested`;
}

/**
 * Gives the run back as it ended, reason included (and `why`, when the resume was refused) —
 * only while this resume's claim still holds it: a redelivered plan message whose items already
 * run (reason "resumed …") or an older resume's (another claim's reason) leaves it alone.
 */
async function giveBack(ledger: RunLedger, runId: string, name: string, from: PlanMessage['resumedFrom'], why?: string): Promise<void> {
  if (from === undefined) return;
  const run = await ledger.getRun(runId);
  if (run?.status !== 'running' || run.reason !== claimReason(name)) return;
  // An earlier refused resume's words (always last) give way to this one's.
  const ended = from.reason?.replace(/(?:^|; )resume \S+ refused: [\s\S]*$/, '');
  const reason = why === undefined ? from.reason : [ended, why].filter((part) => part !== undefined && part !== '').join('; ');
  await ledger.claimStatus(runId, ['running'], from.status, reason);
}

/** Writes the resume's marker (kept when redelivered) and returns its ordinal among the run's resumes. */
async function markResume(store: BlobStore, runId: string, name: string): Promise<number> {
  if (!name) throw new InputError(`a resume of run ${runId} without a name`);
  if (!(await store.exists(resumeKeys.marker(runId, name))))
    await store.put(resumeKeys.marker(runId, name), storedJson({ run_id: runId, resume: name }), 'application/json');
  const names = (await store.list(resumeKeys.prefix(runId))).sort();
  return names.indexOf(resumeKeys.marker(runId, name));
}
