/**
 * MXEval timed on this machine, in the same bench run as polyeval: its own
 * `evaluate_functional_correctness` (amazon-science/mxeval, a checkout outside this
 * repository: `--mxeval <dir>`, MXEVAL_DIR, or `../mxeval` beside it) on a set's problems and
 * samples, 2 workers and a 15 s timeout, kotlinc from the `kotlin-compiler` npm package first
 * on PATH. Without a checkout there is no MXEval figure and no ratio: the times recorded with
 * the fidelity sets (`<set>.mxeval-time.json`) came from other machines and days, and dividing
 * by them overstated polyeval's ratios 1.8–8× (issue 35).
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FIDELITY } from './fidelity-tmp.ts';
import { childrenCpuS, ROOT } from '../../sim/measure-run.ts';

/** MXEval's time on one set, measured in this bench run on this machine. */
export interface MxevalTime {
  wallS: number;
  /** CPU seconds of MXEval and everything it started. */
  cpuS: number;
  /** Samples whose verdict differs from the verdicts recorded with the set (fidelity sets only). */
  disagreements?: number;
}

/** Where the bench looks for MXEval when neither `--mxeval` nor MXEVAL_DIR names it: a checkout beside this repository. */
export const DEFAULT_MXEVAL_DIR = resolve(ROOT, '..', 'mxeval');

const isCheckout = (dir: string): boolean => existsSync(join(dir, 'mxeval', 'evaluate_functional_correctness.py'));

/**
 * The MXEval checkout: `--mxeval <dir>` among the bench's arguments, else MXEVAL_DIR, else
 * `../mxeval` beside this repository when it holds one; undefined when none. A directory named
 * explicitly that holds no checkout is an error.
 */
export function mxevalDir(argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): string | undefined {
  const { values } = parseArgs({ args: [...argv], options: { mxeval: { type: 'string' } }, strict: false, allowPositionals: true });
  const dir = typeof values.mxeval === 'string' ? values.mxeval : env['MXEVAL_DIR'];
  if (!dir) return isCheckout(DEFAULT_MXEVAL_DIR) ? DEFAULT_MXEVAL_DIR : undefined;
  const full = resolve(dir);
  if (!isCheckout(full)) {
    throw new Error(`--mxeval/MXEVAL_DIR ${full} holds no MXEval checkout (no mxeval/evaluate_functional_correctness.py)`);
  }
  return full;
}

/**
 * Why no ratio is printed when MXEval was not timed in this run. A time recorded on another
 * machine (or on this one, another day, under another load) is never divided by: the
 * first-week figures overstated every ratio by 1.8–8×.
 */
export const NOT_TIMED =
  'MXEval not timed in this run, so no ratio: clone amazon-science/mxeval to ../mxeval (or pass --mxeval <dir> / MXEVAL_DIR) and install python3-numpy python3-tqdm python3-fire';

/**
 * MXEval's own published sample files beside its problems (`data/mbxp/examples/<set>_samples.jsonl`
 * and the release file its metadata names), for the sets the bench also times at their full size;
 * undefined when the checkout lacks them.
 */
export function publishedSet(dir: string, set: 'mbpp'): { problems: string; samples: string } | undefined {
  const problems = join(dir, 'data', 'mbxp', `${set}_release_v1.jsonl`);
  const samples = join(dir, 'data', 'mbxp', 'examples', `${set}_samples.jsonl`);
  return existsSync(problems) && existsSync(samples) ? { problems, samples } : undefined;
}

/** A Python that imports what MXEval imports (numpy, tqdm, fire): MXEVAL_PYTHON, else python3 on PATH, else /usr/bin/python3. */
function mxevalPython(env: NodeJS.ProcessEnv): string {
  const candidates = [env['MXEVAL_PYTHON'], 'python3', '/usr/bin/python3'].filter((c): c is string => Boolean(c));
  for (const python of candidates) {
    if (spawnSync(python, ['-c', 'import numpy, tqdm, fire'], { stdio: 'ignore' }).status === 0) return python;
  }
  throw new Error(
    `no Python with MXEval's dependencies (numpy, tqdm, fire) among ${candidates.join(', ')}: apt-get install python3-numpy python3-tqdm python3-fire, or set MXEVAL_PYTHON`,
  );
}

/** A set both harnesses run: MXEval problems and samples files (`mxeval_passed` per sample on the fidelity sets). */
export interface PeerSet {
  name: string;
  problems: string;
  samples: string;
}

/** A fidelity set's files (../shared/fidelity, read where they are). */
export const fidelitySet = (set: string): PeerSet => ({
  name: set,
  problems: join(FIDELITY, `${set}.problems.jsonl`),
  samples: join(FIDELITY, `${set}.samples.jsonl`),
});

/**
 * Runs MXEval on `set` in a scratch directory under `scratchRoot` (it writes its results beside
 * the samples file, so the samples are copied there; the set's own files are only read).
 */
export async function measureMxeval(dir: string, set: PeerSet, scratchRoot: string, env: NodeJS.ProcessEnv = process.env): Promise<MxevalTime> {
  const python = mxevalPython(env);
  const scratch = mkdtempSync(join(scratchRoot, `mxeval-${set.name}-`));
  try {
    const samples = join(scratch, `${set.name}.samples.jsonl`);
    copyFileSync(set.samples, samples);
    const args = ['-m', 'mxeval.evaluate_functional_correctness', samples, `--problem_file=${set.problems}`, '--n_workers=2', '--timeout=15'];
    const childEnv = {
      ...env,
      PYTHONPATH: dir,
      PATH: `${join(ROOT, 'node_modules', 'kotlin-compiler', 'bin')}:${env['PATH'] ?? '/usr/bin:/bin'}`,
    };
    const cpu0 = childrenCpuS();
    const t0 = performance.now();
    const child = spawn(python, args, { cwd: scratch, env: childEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    const code = await new Promise<number | null>((res) => child.on('close', res));
    const wallS = (performance.now() - t0) / 1000;
    const cpuS = childrenCpuS() - cpu0;
    if (code !== 0) throw new Error(`MXEval on ${set.name} exited ${code}: ${stderr.slice(-1500)}`);
    const d = disagreements(samples);
    return { wallS, cpuS, ...(d === undefined ? {} : { disagreements: d }) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Samples whose MXEval verdict in this run differs from the one recorded with the set; undefined when the set records none. */
function disagreements(samples: string): number | undefined {
  const lines = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { mxeval_passed?: boolean; passed?: boolean });
  const expected = lines(samples);
  if (!expected.some((r) => r.mxeval_passed !== undefined)) return undefined;
  const got = lines(`${samples}_results.jsonl`);
  return got.filter((r, i) => r.passed !== expected[i]?.mxeval_passed).length + Math.abs(expected.length - got.length);
}

/** MXEval's time on `set`, measured in this run; undefined without a checkout (then no ratio is printed: NOT_TIMED). */
export async function mxevalTime(dir: string | undefined, set: PeerSet, scratchRoot: string): Promise<MxevalTime | undefined> {
  return dir ? measureMxeval(dir, set, scratchRoot) : undefined;
}

/** "MXEval 10.9 s (measured in this run, CPU 12.1 s)". */
export function mxevalNote(m: MxevalTime): string {
  const agree = m.disagreements ? `; ${m.disagreements} verdicts differ from the recorded ones` : '';
  return `MXEval ${m.wallS.toFixed(2)} s (measured in this run, CPU ${m.cpuS.toFixed(2)} s${agree})`;
}
