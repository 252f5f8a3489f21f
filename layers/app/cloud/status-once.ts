/**
 * The run status one Lambda invocation reads: each run's once (issue 35). Every generate and
 * execute message first asks whether its run was cancelled (stages.ts), and the judge asks
 * again when its runner's answer brings the item back; a batch of 5 or 10 messages of one run
 * read the same row 5 or 10 times. Per invocation, the first read of a run's status is shared
 * by the batch's other messages. A cancel that lands during the batch is seen by the next
 * invocation, as it was by a message that had started before the cancel. A status this
 * invocation writes (a stage that stops or fails the run) drops the shared read.
 */
import type { RunLedger, RunStatus } from '#core/ports.ts';

/** `ledger` with {@link RunLedger.runStatus} read once per run for this object's life (one invocation). */
export function statusOncePerInvocation(ledger: RunLedger): RunLedger {
  const reads = new Map<string, Promise<RunStatus | undefined>>();
  const runStatus = (runId: string): Promise<RunStatus | undefined> => {
    let read = reads.get(runId);
    if (read === undefined) {
      read = ledger.runStatus(runId);
      reads.set(runId, read);
      // A failed read is not shared: the next message reads again (and fails or retries on its own).
      read.catch(() => reads.delete(runId));
    }
    return read;
  };
  const setStatus: RunLedger['setStatus'] = (runId, ...rest) => {
    reads.delete(runId);
    return ledger.setStatus(runId, ...rest);
  };
  return new Proxy(ledger, {
    get(target, name) {
      if (name === 'runStatus') return runStatus;
      if (name === 'setStatus') return setStatus;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
