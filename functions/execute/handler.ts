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
import { RecordBatch } from '#app/cloud/record-batch.ts';
import { executeWork } from '#app/cloud/stages.ts';
import { lazyHandler } from '../shared/lazy.ts';
import { createObservability } from '../shared/observability.ts';
import { sqsHandler, type SqsHandler } from '../shared/sqs-handler.ts';
import { createExecuteDeps, type ExecuteHandlerDeps } from './deps.ts';

export function makeHandler(deps: ExecuteHandlerDeps): SqsHandler {
  const { handoff } = deps;
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
    handle: async (message) => {
      if (handoff) return judgeWork(deps, handoff, message, batches.getStore(), alone);
      const outcome = await executeWork(deps, message as GeneratedMessage);
      await deps.afterItem?.(); // discards this environment if the program left anything behind
      return outcome;
    },
  });
  if (!handoff) return inner;
  // The same participants' records are counted in the ledger together (layers/app/cloud/record-batch.ts).
  return (event, context) => {
    const participants = event.Records.filter(isJson).length;
    return batches.run(new HandoffBatch(participants, handoff.invokeEvent, new RecordBatch(participants)), () => inner(event, context));
  };
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
