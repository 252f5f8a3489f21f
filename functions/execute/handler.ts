/**
 * execute (SQS, container image; one handler for every language): a generated code sample →
 * the sandbox's verdict → the record, then the completion check (layers/app/cloud/stages.ts).
 * A judge that hands off to its runner also takes the runner's invocation records from the
 * runner's destination queue, and continues their items (layers/app/cloud/continuation.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import pLimit from 'p-limit';
import { HandoffBatch, judgeWork, parseJudgeMessage } from '#app/cloud/continuation.ts';
import { parseGeneratedItem, type GeneratedMessage } from '#app/cloud/messages.ts';
import { executeWork } from '#app/cloud/stages.ts';
import { statusOncePerInvocation } from '#app/cloud/status-once.ts';
import type { RunLedger } from '#core/ports.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability } from '../shared/observability.ts';
import { sqsHandler, type SqsHandler } from '../shared/sqs-handler.ts';
import { createExecuteDeps, type ExecuteHandlerDeps } from './deps.ts';

export function makeHandler(deps: ExecuteHandlerDeps): SqsHandler {
  const { handoff } = deps;
  // One per invocation: each run's status read once for the batch (status-once.ts).
  const ledgers = new AsyncLocalStorage<RunLedger>();
  const depsNow = () => ({ ...deps, ledger: ledgers.getStore() ?? deps.ledger });
  // One per SQS batch: the batch's items that hand off go to the runner together, a task's samples several per invocation (continuation.ts).
  const batches = new AsyncLocalStorage<HandoffBatch>();
  // One item scored at a time, its after-item check with it (continuation.ts ScoreAlone): a batch's items never run two checkers at once.
  const slot = pLimit(1);
  const alone = <T>(score: () => Promise<T>): Promise<T> =>
    slot(async () => {
      try {
        return await score();
      } finally {
        await deps.afterItem?.(); // discards this environment if the program left anything behind
      }
    });
  const inner = sqsHandler({
    obs: deps.obs ?? createObservability('execute'),
    what: 'generated item',
    parse: handoff
      ? (body) => {
          try {
            return parseJudgeMessage(body);
          } catch (error) {
            batches.getStore()?.leave(); // a malformed message never reaches the handler: it holds no one back
            throw error;
          }
        }
      : parseGeneratedItem,
    handle: async (message, record) => {
      // When the judge looks its item up (stages.ts Delivery): before recording only, with the hand-off or on a first delivery.
      const delivery = { lookBeforeRecording: handoff !== undefined || record.attributes.ApproximateReceiveCount === '1' };
      if (handoff) return judgeWork(depsNow(), handoff, message, batches.getStore(), alone, delivery);
      const outcome = await executeWork(depsNow(), message as GeneratedMessage, delivery);
      await deps.afterItem?.(); // discards this environment if the program left anything behind
      return outcome;
    },
  });
  const once = (event: Parameters<SqsHandler>[0], context: Parameters<SqsHandler>[1]) =>
    ledgers.run(statusOncePerInvocation(deps.ledger), () => inner(event, context));
  if (!handoff) return once;
  return (event, context) => batches.run(new HandoffBatch(event.Records.filter(isJson).length, handoff.invokeEvent), () => once(event, context));
}

/** A record whose body is not JSON fails before its message is parsed (sqs-handler.ts): it is no participant. */
function isJson(record: { body: string }): boolean {
  try {
    JSON.parse(record.body);
    return true;
  } catch {
    return false;
  }
}

export const handler = lazyHandler(() => makeHandler(createExecuteDeps()));
