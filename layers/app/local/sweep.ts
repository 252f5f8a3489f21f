/**
 * A sweep on this machine: a grid of benchmarks × models. Without a grid bound its cells run
 * one after another; with one (`--concurrency N`) they run at the same time, at most N items
 * in flight across the grid (see {@link GridGate}). Either way they share one sandbox executor (one limit on executions in flight: cores or `--jobs`;
 * the Kotlin compile server warm; one compile cache), one limit on calls in flight per model
 * shared by every cell of that model. Concurrent cells start in grid order, each once the
 * previous one has planned and the grid has room to spare.
 *
 * The sweep document `sweeps/<sweep_id>.json` lists the grid and, per cell, the run started
 * for each dataset and language — written before that run does any work — so
 * `--resume <sweep-id>` after a kill resumes the runs that were started and starts the ones
 * that were not: every item is recorded exactly once, as for a single run. A cell that fails
 * (a bad benchmark file, a refused setting) is reported in `failures`; the other cells go on.
 */
import { z } from 'zod';
import { InputError } from '#core/errors.ts';
import { parseStored, schemaVersionField, storedJson } from '#core/run/index.ts';
import { parseRecordedRunSpec, type RunSpec } from '#core/run/index.ts';
import { runLocal, type LocalRunOptions, type LocalRunResult } from './run.ts';
import { SharedSandbox } from './shared-sandbox.ts';
import { GridGate } from './grid-gate.ts';
import { ModelLimits } from './model-limits.ts';
import type { Home } from './home.ts';
import { newRunId } from '../shared/run-ids.ts';

/** A local sweep's state (`sweeps/<sweep_id>.json`); each spec is checked by the run spec's schema on read. */
const SweepDocumentSchema = z
  .object({
    schema_version: schemaVersionField,
    sweep_id: z.string().min(1),
    created_at: z.string(),
    /** The grid, benchmark-major. */
    specs: z.array(z.custom<RunSpec>((spec) => typeof spec === 'object' && spec !== null, { error: 'expected a run spec (an object)' })),
    /** Per cell (index into specs): run id per `<dataset spec>|<language>`. */
    runs: z.record(z.string(), z.record(z.string(), z.string())),
    /** Every cell generates through its provider's batch API (`--batch`); a resume keeps it. */
    batch: z.boolean().optional(),
  })
  .loose();
export type SweepDocument = z.infer<typeof SweepDocumentSchema>;

/** A cell that threw: its recorded work stays (and resumes with the sweep). */
export interface CellFailure {
  cell: number;
  benchmark: string;
  model: string;
  error: Error;
}

export interface SweepResult {
  sweep_id: string;
  /** Runs of the cells that did not fail, in grid order. */
  results: LocalRunResult[];
  failures: CellFailure[];
}

export interface SweepOptions extends LocalRunOptions {
  /** Items in flight across the grid (`--concurrency`): cells run at the same time. Absent: one cell after another. */
  gridConcurrency?: number;
  /** Sees each event with the grid cell it came from. */
  onCellEvent?: (cell: number, event: Parameters<NonNullable<LocalRunOptions['onEvent']>>[0]) => void;
  /** A cell is over: every run of it ended, failed or was already complete. */
  onCellEnded?: (cell: number) => void;
}

const sweepKey = (sweepId: string): string => `sweeps/${sweepId}.json`;

/** True when `id` names a sweep of this home. */
export async function isSweepId(home: Home, id: string): Promise<boolean> {
  return /^sweep-/.test(id) && (await home.store.exists(sweepKey(id)));
}

async function readSweep(home: Home, sweepId: string): Promise<SweepDocument> {
  const text = await home.store.getText(sweepKey(sweepId));
  if (!text) throw new InputError(`no sweep "${sweepId}" in ${home.root}`, { field: 'resume' });
  const doc = parseStored(SweepDocumentSchema, text, home.store.locate(sweepKey(sweepId)));
  // Specs were validated when the sweep started; validate again so a hand-edited file fails clearly.
  // The schema only: a cell the rules between options refuse fails as a cell, and the others resume.
  return { ...doc, specs: doc.specs.map((s, i) => parseRecordedRunSpec(s, `${sweepKey(sweepId)} specs[${i}]`)) };
}

async function runCells(doc: SweepDocument, opts: SweepOptions, onStart?: (doc: SweepDocument) => void): Promise<SweepResult> {
  // Cells write their run ids concurrently: one write at a time, each of the whole document.
  let saving = Promise.resolve();
  const save = (): Promise<void> => (saving = saving.then(() => opts.home.store.put(sweepKey(doc.sweep_id), storedJson(doc, 2), 'application/json')));
  await save();
  onStart?.(doc);
  const sandbox = opts.sandbox ?? new SharedSandbox();
  const concurrent = opts.gridConcurrency !== undefined;
  const gate = concurrent ? new GridGate(opts.gridConcurrency ?? 1) : undefined;
  const modelLimits = opts.modelLimits ?? new ModelLimits();
  const outcomes: ({ results: LocalRunResult[] } | { error: Error })[] = [];
  const running: Promise<void>[] = [];
  try {
    for (const [index, spec] of doc.specs.entries()) {
      await gate?.whenIdle();
      let planned!: () => void;
      const started = new Promise<void>((resolve) => (planned = resolve));
      const cell = (doc.runs[String(index)] ??= {});
      const cellOpts: LocalRunOptions = {
        ...opts,
        sandbox,
        ...(gate ? { gate } : {}),
        modelLimits,
        onEvent: (event) => {
          if (event.type === 'planned') planned();
          opts.onEvent?.(event);
          opts.onCellEvent?.(index, event);
        },
        runs: {
          existing: (key) => cell[key],
          created: async (key, runId) => {
            cell[key] = runId;
            await save();
          },
        },
      };
      running.push(
        runLocal(spec, cellOpts)
          .then(
            (results) => void (outcomes[index] = { results }),
            (error: unknown) => void (outcomes[index] = { error: error instanceof Error ? error : new Error(String(error)) }),
          )
          .finally(() => {
            planned();
            opts.onCellEnded?.(index);
          }),
      );
      // One cell loads and plans at a time; the next one starts once this one has work in
      // flight (concurrent) or is done (one after another).
      await (concurrent ? started : running[running.length - 1]);
    }
    await Promise.all(running);
  } finally {
    await Promise.allSettled(running);
    await saving;
    if (!opts.sandbox) await sandbox.close();
  }
  const results: LocalRunResult[] = [];
  const failures: CellFailure[] = [];
  for (const [index, outcome] of outcomes.entries()) {
    if (!outcome) continue;
    if ('error' in outcome)
      failures.push({ cell: index, benchmark: doc.specs[index]?.benchmark ?? '', model: doc.specs[index]?.model ?? '', error: outcome.error });
    else results.push(...outcome.results);
  }
  return { sweep_id: doc.sweep_id, results, failures };
}

/**
 * Runs every spec of the grid. `onStart` sees the sweep document once it is saved (the
 * CLI prints the id to resume with).
 */
export async function runSweep(specs: readonly RunSpec[], opts: SweepOptions, onStart?: (doc: SweepDocument) => void): Promise<SweepResult> {
  const now = (opts.clock ?? (() => new Date()))();
  return runCells(
    { sweep_id: newRunId('sweep', now), created_at: now.toISOString(), specs: [...specs], runs: {}, ...(opts.batch?.newRuns ? { batch: true } : {}) },
    opts,
    onStart,
  );
}

/** Continues a killed or stopped sweep: started runs resume, the others start. */
export async function resumeSweep(sweepId: string, opts: SweepOptions, onStart?: (doc: SweepDocument) => void): Promise<SweepResult> {
  const doc = await readSweep(opts.home, sweepId);
  return runCells(doc, doc.batch ? { ...opts, batch: { ...opts.batch, newRuns: true } } : opts, onStart);
}
