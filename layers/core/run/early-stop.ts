/**
 * A run that stops itself: when the first items an invocation records all fail the same way —
 * every one a system error (SE: the server down, a credential refused, a harness fault), or
 * every one an empty answer with the same reason (a reasoning model spending its whole budget
 * thinking, a filter refusing every prompt) — the rest would fail alike and bill for it. The
 * run stops there, as `--max-cost` stops it: the reason said once, no further model call, the
 * items recorded so far kept, `polyeval run --resume <run>` continuing once the cause is fixed.
 *
 * The rule: the first {@link EARLY_STOP_FIRST} items recorded by one invocation (a resume
 * watches its own first ones), in a run with more items than that left to run; `--no-early-stop`
 * turns it off (the manifest's `early_stop: null`). One pure rule, called by the local
 * pipeline; the cloud's stages do not apply it yet (each worker sees one item).
 */
import type { RunRecord } from '../columns.ts';

/** How many first items decide. */
export const EARLY_STOP_FIRST = 10;

/** What the rule reads of a record; `verdict` null: a generation not scored yet (its SE is known, the rest is not). */
export type EarlyStopRecord = Pick<RunRecord, 'answer' | 'error'> & { verdict: RunRecord['verdict'] | null };

/**
 * What a generation already tells the rule, before it is scored: a failed call is the SE it
 * will be recorded as (engine.ts `scoreItem`), an empty answer carries the model's reason.
 * The pipeline watches generations with it so the stop comes before calls the scorer has not
 * caught up with yet (generation runs ahead of scoring and recording); records are watched
 * too, for the SEs only the scorer sees (a harness fault).
 */
export function generatedRecord(generated: { answer: string; failure?: string; refusal?: string }): EarlyStopRecord {
  if (generated.failure !== undefined) return { verdict: 'SE', answer: '', error: generated.failure };
  return { verdict: null, answer: generated.answer, error: generated.refusal ?? null };
}

/**
 * Watches the first records of an invocation; `observe` returns the reason to stop once the
 * first `first` all failed the same way, and undefined otherwise (also for every record after).
 *
 * @example
 * const watch = new EarlyStopWatch(10);
 * for (const r of records) { const reason = watch.observe(r); if (reason) stop(reason); }
 */
export class EarlyStopWatch {
  readonly #seen: EarlyStopRecord[] = [];

  constructor(readonly first: number = EARLY_STOP_FIRST) {}

  observe(record: EarlyStopRecord): string | undefined {
    if (this.#seen.length >= this.first) return undefined;
    this.#seen.push(record);
    if (this.#seen.length < this.first) return undefined;
    return earlyStopReason(this.#seen);
  }
}

/**
 * Why a run whose first records are `records` should stop, or undefined when it should go on.
 *
 * @example
 * earlyStopReason(Array(10).fill({ verdict: 'SE', answer: '', error: 'generation: HTTP 500' }));
 * // 'the first 10 items all ended SE (system error), e.g. "generation: HTTP 500"; …'
 */
export function earlyStopReason(records: readonly EarlyStopRecord[]): string | undefined {
  const n = records.length;
  if (n === 0) return undefined;
  const fix = 'fix the cause and continue the run with --resume, or run every item regardless with --no-early-stop';
  if (records.every((r) => r.verdict === 'SE')) {
    const errors = [...new Set(records.map((r) => r.error ?? 'no error recorded'))];
    const said = errors.length === 1 ? JSON.stringify(errors[0]) : `e.g. ${JSON.stringify(errors[0])} (${errors.length} different errors)`;
    return `early stop: the first ${n} items all ended SE (system error): ${said}; the rest would fail alike — ${fix}`;
  }
  const reasons = records.map((r) => ((r.answer ?? '').trim() === '' && r.error ? sameReason(r.error) : undefined));
  const first = reasons[0];
  if (first !== undefined && reasons.every((r) => r === first)) {
    return `early stop: the first ${n} items all came back empty for the same reason: ${JSON.stringify(records[0]?.error ?? '')}; the rest would too — ${fix}`;
  }
  return undefined;
}

/** An error with its numbers taken out (request ids, token counts), so one cause reads as one reason. */
function sameReason(error: string): string {
  return error.replace(/\d+/g, '#');
}
