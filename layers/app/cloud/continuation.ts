/**
 * The Lambda judge's message handler when it hands off to its runner (runner-handoff.ts): an
 * execute message starts an item, a runner's invocation record continues one. Either way the
 * item is scored by executeWork (stages.ts) from the start, with the runner's answers so far;
 * at the first unanswered runner job the judge invokes its runner asynchronously and returns
 * (`handed-off`), and the runner's record brings the item back here. A record, a skip, a
 * cancelled run and every failure take the same path as a synchronous judge's, so the run's
 * completion counting (layers/core/run/lifecycle.ts) is unchanged.
 */
import { parseGeneratedItem } from './messages.ts';
import { continuationOf, HandedOff, isDestinationRecord, withHandoff } from './runner-handoff.ts';
import { executeWork, type StageDeps, type StageOutcome } from './stages.ts';

export interface HandoffDeps {
  /** Invokes the runner asynchronously (`InvocationType: Event`) with this event. */
  invokeEvent: (payload: string) => Promise<void>;
}

/** A message body the judge's queues carry: an execute message, or (with a hand-off) a runner's invocation record. */
export function parseJudgeMessage(body: unknown): unknown {
  if (!isDestinationRecord(body)) parseGeneratedItem(body); // refuses a malformed execute message here, as before
  return body;
}

/** One judge message: scored from the start with the answers so far; handed off at the first unanswered runner job. */
export async function judgeWork(deps: StageDeps, handoff: HandoffDeps, body: unknown): Promise<StageOutcome> {
  const { message, answers } = isDestinationRecord(body) ? continuationOf(body) : { message: body, answers: [] };
  const generated = parseGeneratedItem(message);
  try {
    return await withHandoff(message, answers, () => executeWork(deps, generated));
  } catch (error) {
    if (!(error instanceof HandedOff)) throw error;
    // A failed invoke throws: the message comes back to be tried again, as a synchronous judge's.
    await handoff.invokeEvent(JSON.stringify(error.event));
    return { status: 'handed-off' };
  }
}
