/**
 * Lets the event loop turn once a stretch of synchronous work has run for a slice of time.
 *
 * A local run whose model and scorer need no I/O (`reference`, `replay:`, likert scoring) writes
 * its records with synchronous file calls (see fs-blob-store.ts), so every `await` of its item
 * loop settles as a microtask: without a turn of the event loop, nothing else in the process
 * runs until the run ends — the other cells of a `--concurrency` sweep (their dataset reads,
 * their model calls' replies), the progress bars' redraw timers, a network model's timeouts.
 * Callers await {@link turnWhenDue} once per item or object: while the slice lasts it costs one
 * clock read; once the slice is spent it resolves in the event loop's check phase
 * (`setImmediate`). Between two such turns the loop passes its timers phase and polls for I/O
 * once at least, so due timers fire and I/O callbacks run every slice or two.
 *
 * One slice for the whole process: every caller waits for the same turn, then all go on.
 */

/** Milliseconds of work between turns: short beside a progress bar's redraw (~100 ms), long beside one turn's cost (~10 µs). */
export const SLICE_MS = 5;

let sliceStarted = performance.now();
let nextTurn: Promise<void> | undefined;

/**
 * Resolves at once (undefined) while the current slice lasts; once it is spent, a promise that
 * resolves at the event loop's next turn, which starts a new slice.
 *
 * @example
 * for (const item of items) {
 *   work(item);
 *   await turnWhenDue();
 * }
 */
export function turnWhenDue(): Promise<void> | undefined {
  if (nextTurn) return nextTurn;
  if (performance.now() - sliceStarted < SLICE_MS) return undefined;
  nextTurn = new Promise((resolve) =>
    setImmediate(() => {
      nextTurn = undefined;
      sliceStarted = performance.now();
      resolve();
    }),
  );
  return nextTurn;
}
