/**
 * A sweep on this machine: a grid of benchmarks × models run one cell after another over
 * one shared sandbox (warm Kotlin compile server, one compile cache). The sweep document
 * `sweeps/<sweep_id>.json` lists the grid and, per cell, the run started for each dataset
 * and language — written before that run does any work — so `--resume <sweep-id>` after a
 * kill resumes the runs that were started and starts the ones that were not: every item is
 * recorded exactly once, as for a single run.
 */
import { randomBytes } from 'node:crypto';
import { InputError } from '#core/errors.ts';
import { parseRunSpec, type RunSpec } from '#core/run/spec.ts';
import { runLocal, SharedSandbox, type LocalRunOptions, type LocalRunResult } from './run.ts';
import type { Home } from './home.ts';

export interface SweepDocument {
  sweep_id: string;
  created_at: string;
  /** The grid, benchmark-major. */
  specs: RunSpec[];
  /** Per cell (index into specs): run id per `<dataset spec>|<language>`. */
  runs: Record<string, Record<string, string>>;
}

export interface SweepResult {
  sweep_id: string;
  results: LocalRunResult[];
}

const sweepKey = (sweepId: string): string => `sweeps/${sweepId}.json`;

/** True when `id` names a sweep of this home. */
export async function isSweepId(home: Home, id: string): Promise<boolean> {
  return /^sweep-/.test(id) && (await home.store.exists(sweepKey(id)));
}

function newSweepId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  return `sweep-${stamp}-${randomBytes(3).toString('hex')}`;
}

async function readSweep(home: Home, sweepId: string): Promise<SweepDocument> {
  const text = await home.store.getText(sweepKey(sweepId));
  if (!text) throw new InputError(`no sweep "${sweepId}" in ${home.root}`, { field: 'resume' });
  const doc = JSON.parse(text) as SweepDocument;
  // Specs were validated when the sweep started; validate again so a hand-edited file fails clearly.
  return { ...doc, specs: doc.specs.map((s, i) => parseRunSpec(s, `${sweepKey(sweepId)} specs[${i}]`)) };
}

async function runCells(doc: SweepDocument, opts: LocalRunOptions, onStart?: (doc: SweepDocument) => void): Promise<SweepResult> {
  const save = (): Promise<void> => opts.home.store.put(sweepKey(doc.sweep_id), JSON.stringify(doc, null, 2), 'application/json');
  await save();
  onStart?.(doc);
  const sandbox = opts.sandbox ?? new SharedSandbox();
  const results: LocalRunResult[] = [];
  try {
    for (const [index, spec] of doc.specs.entries()) {
      const cell = (doc.runs[String(index)] ??= {});
      results.push(
        ...(await runLocal(spec, {
          ...opts,
          sandbox,
          runs: {
            existing: (key) => cell[key],
            created: async (key, runId) => {
              cell[key] = runId;
              await save();
            },
          },
        })),
      );
    }
  } finally {
    if (!opts.sandbox) await sandbox.close();
  }
  return { sweep_id: doc.sweep_id, results };
}

/**
 * Runs every spec of the grid. `onStart` sees the sweep document once it is saved (the
 * CLI prints the id to resume with).
 */
export async function runSweep(specs: readonly RunSpec[], opts: LocalRunOptions, onStart?: (doc: SweepDocument) => void): Promise<SweepResult> {
  const now = (opts.clock ?? (() => new Date()))();
  return runCells({ sweep_id: newSweepId(now), created_at: now.toISOString(), specs: [...specs], runs: {} }, opts, onStart);
}

/** Continues a killed or stopped sweep: started runs resume, the others start. */
export async function resumeSweep(sweepId: string, opts: LocalRunOptions, onStart?: (doc: SweepDocument) => void): Promise<SweepResult> {
  return runCells(await readSweep(opts.home, sweepId), opts, onStart);
}
