/**
 * MXEval timed on this machine, in the same bench run as polyeval: its own
 * `evaluate_functional_correctness` (amazon-science/mxeval, a checkout outside this
 * repository named by `--mxeval <dir>` or MXEVAL_DIR) on a fidelity set's problems and
 * samples, 2 workers and a 15 s timeout as the recorded runs, kotlinc from the
 * `kotlin-compiler` npm package first on PATH. Without a checkout the recorded time
 * (`<set>.mxeval-time.json`, measured once on a machine of our kind) stands in, labelled so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { FIDELITY } from './fidelity-tmp.ts';
import { childrenCpuS, ROOT } from './measure-run.ts';

/** MXEval's time on one set, and where it comes from. */
export interface MxevalTime {
  wallS: number;
  /** CPU seconds of MXEval and everything it started (undefined for the recorded time). */
  cpuS?: number;
  /** `measured here` or `recorded` (the figure's label in the bench output). */
  source: 'measured here' | 'recorded';
  /** Samples whose verdict differs from the recorded MXEval verdicts (a measured run only). */
  disagreements?: number;
}

/** The MXEval checkout: `--mxeval <dir>` among the bench's arguments, else MXEVAL_DIR; undefined when neither. */
export function mxevalDir(argv: readonly string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): string | undefined {
  const { values } = parseArgs({ args: [...argv], options: { mxeval: { type: 'string' } }, strict: false, allowPositionals: true });
  const dir = typeof values.mxeval === 'string' ? values.mxeval : env['MXEVAL_DIR'];
  if (!dir) return undefined;
  const full = resolve(dir);
  if (!existsSync(join(full, 'mxeval', 'evaluate_functional_correctness.py'))) {
    throw new Error(`--mxeval/MXEVAL_DIR ${full} holds no MXEval checkout (no mxeval/evaluate_functional_correctness.py)`);
  }
  return full;
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

/** The recorded time of `set` (no checkout given). */
export function recordedMxevalTime(set: string): MxevalTime {
  const { wall_s } = JSON.parse(readFileSync(join(FIDELITY, `${set}.mxeval-time.json`), 'utf8')) as { wall_s: number };
  return { wallS: wall_s, source: 'recorded' };
}

/**
 * Runs MXEval on `set` in a scratch directory under `scratchRoot` (it writes its results beside
 * the samples file, so the samples are copied there; the fidelity folder is only read).
 */
export async function measureMxeval(dir: string, set: string, scratchRoot: string, env: NodeJS.ProcessEnv = process.env): Promise<MxevalTime> {
  const python = mxevalPython(env);
  const scratch = mkdtempSync(join(scratchRoot, `mxeval-${set}-`));
  try {
    const samples = join(scratch, `${set}.samples.jsonl`);
    copyFileSync(join(FIDELITY, `${set}.samples.jsonl`), samples);
    const args = [
      '-m',
      'mxeval.evaluate_functional_correctness',
      samples,
      `--problem_file=${join(FIDELITY, `${set}.problems.jsonl`)}`,
      '--n_workers=2',
      '--timeout=15',
    ];
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
    if (code !== 0) throw new Error(`MXEval on ${set} exited ${code}: ${stderr.slice(-1500)}`);
    return { wallS, cpuS, source: 'measured here', disagreements: disagreements(samples) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Samples whose MXEval verdict in this run differs from the one recorded with the fidelity set. */
function disagreements(samples: string): number {
  const lines = (file: string) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { mxeval_passed?: boolean; passed?: boolean });
  const expected = lines(samples);
  const got = lines(`${samples}_results.jsonl`);
  return got.filter((r, i) => r.passed !== expected[i]?.mxeval_passed).length + Math.abs(expected.length - got.length);
}

/** MXEval's time on `set`: measured here when a checkout is given, else the recorded one. */
export async function mxevalTime(dir: string | undefined, set: string, scratchRoot: string): Promise<MxevalTime> {
  return dir ? measureMxeval(dir, set, scratchRoot) : recordedMxevalTime(set);
}

/** "MXEval 10.9 s (measured here, CPU 12.1 s)" / "MXEval 10.9 s (recorded; pass --mxeval <dir> to time it here)". */
export function mxevalNote(m: MxevalTime): string {
  if (m.source === 'recorded') return `MXEval ${m.wallS.toFixed(2)} s (recorded, not this machine now; pass --mxeval <dir> or MXEVAL_DIR to time it here)`;
  const agree = m.disagreements ? `; ${m.disagreements} verdicts differ from the recorded ones` : '';
  return `MXEval ${m.wallS.toFixed(2)} s (measured here, CPU ${(m.cpuS ?? 0).toFixed(2)} s${agree})`;
}
