/**
 * Issue 35: the peak memory of the pipeline's Node stages (plan, generate, aggregate), the figures
 * layers/app/cloud/function-memory.ts sizes their Lambda functions from. Three child processes per
 * stage, each a fresh Node with nothing else in it:
 *
 * - Node's own baseline: a bare `node`, its peak resident set (VmHWM in /proc/self/status);
 * - the stage's cold start: the stage's entry point (functions/<stage>/handler.ts) bundled the way
 *   infra bundles it (esbuild, ESM, node22, minified, the same externals) and imported — every
 *   module a cold start loads — then the peak resident set;
 * - one invocation: the real handler run in the cloud simulation (sim/cloud/simulate.ts) on a
 *   representative run (`items` RoCode items: plan's 1,000-item chunks, generate's batches as deployed (12),
 *   aggregate's parts of 1,000 and the final report), each of the stage's invocations one at a
 *   time, the peak reset before it (`echo 5 > /proc/self/clear_refs`, proc(5)) and read after, and
 *   the heap it allocated (garbage included: a collected heap reuses its freed pages without
 *   growing the resident set): the most one invocation grew the process.
 *
 * A stage's peak is its cold start plus its largest invocation's growth. The simulation's other
 * stages run in the same process while an invocation awaits, so the growth is an upper figure.
 * Linux only (/proc); elsewhere it reads `process.resourceUsage().maxRSS`, which cannot be reset.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { SimLanguage } from './sim-model.ts';

export const MEASURED_STAGES = ['plan', 'generate', 'aggregate', 'execute'] as const;
export type MeasuredStage = (typeof MEASURED_STAGES)[number];

export interface StagePeak {
  stage: MeasuredStage;
  /** A bare Node process's peak resident set, MB. */
  node_baseline_mb: number;
  /** After importing the stage's bundled entry point, MB (includes Node's baseline). */
  cold_start_mb: number;
  /** The most one invocation grew the process, MB. */
  invocation_mb: number;
  /** cold_start_mb + invocation_mb. */
  peak_mb: number;
  invocations: number;
}

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const MB = 1024 * 1024;

/** The process's peak resident set in bytes: VmHWM (proc(5)), or maxRSS where /proc is absent. */
function peakBytes(): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb !== undefined) return Number(kb) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** Resets VmHWM to the current resident set ("5" to /proc/self/clear_refs, Linux ≥ 4.0); false where it cannot. */
function resetPeak(): boolean {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
}

function nodeBaselineMb(): number {
  const out = execFileSync(process.execPath, ['-e', `process.stdout.write(String(${peakBytes.toString()}()))`], { encoding: 'utf8' });
  return Number(out) / MB;
}

/** The stage's entry bundled as infra/defaults/function-defaults.ts bundles it, imported in a fresh Node. */
async function coldStartMb(stage: MeasuredStage): Promise<number> {
  const { build } = await import('esbuild');
  const { FILE_READING_PACKAGES, LOCAL_ONLY_PACKAGES } = await import('../../infra/defaults/function-defaults.ts');
  const dir = mkdtempSync(join(tmpdir(), 'pe-measure-'));
  try {
    // The externals resolve from the project's node_modules, as they do beside the deployed bundle.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const outfile = join(dir, 'index.mjs');
    await build({
      entryPoints: [join(ROOT, 'functions', stage, 'handler.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      mainFields: ['module', 'main'],
      minify: true,
      outfile,
      logLevel: 'error',
      external: [...FILE_READING_PACKAGES, ...LOCAL_ONLY_PACKAGES],
      banner: { js: "import { createRequire as __polyevalCreateRequire } from 'node:module'; const require = __polyevalCreateRequire(import.meta.url);" },
    });
    const script = `await import(${JSON.stringify(outfile)}); process.stdout.write(String((${peakBytes.toString()})()));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, AWS_REGION: 'us-east-1', BUCKET_NAME: 'measure', TABLE_NAME: 'measure' },
    });
    return Number(out) / MB;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** In a child: runs the simulation with `stage`'s invocations one at a time, each one's growth read around it. */
async function invocationGrowth(stage: MeasuredStage, language: SimLanguage, items: number): Promise<{ mb: number; invocations: number }> {
  const { runSimulation } = await import('./simulate.ts');
  const gc = (globalThis as { gc?: () => void }).gc;
  let tail: Promise<unknown> = Promise.resolve();
  let most = 0;
  let invocations = 0;
  const sim = await runSimulation({
    items,
    language,
    wrapHandler: (name, handler) =>
      name !== stage
        ? handler
        : (event, context) => {
            const run = tail.then(async () => {
              gc?.();
              const before = process.memoryUsage();
              if (!resetPeak()) throw new Error('cannot reset the peak resident set (/proc/self/clear_refs): Linux only');
              try {
                return await handler(event, context);
              } finally {
                // Freed pages a collected heap keeps hide growth from the resident set: also count what the
                // invocation allocated on the heap and outside it (garbage included, so an upper figure).
                const after = process.memoryUsage();
                const allocated = after.heapUsed + after.external - before.heapUsed - before.external;
                most = Math.max(most, peakBytes() - before.rss, allocated);
                invocations += 1;
              }
            });
            tail = run.catch(() => undefined);
            return run;
          },
  });
  if (sim.completed !== items) throw new Error(`the measuring run completed ${sim.completed} of ${items} items: ${sim.bottleneck}`);
  return { mb: most / MB, invocations };
}

const round = (mb: number): number => Math.round(mb);

/** Each stage's peak, measured in fresh child processes (see the module comment). */
export async function measureStagePeaks(options: { language?: SimLanguage; items?: number; stages?: readonly MeasuredStage[] } = {}): Promise<StagePeak[]> {
  const language = options.language ?? 'python';
  const items = options.items ?? 2000;
  const baseline = nodeBaselineMb();
  const out: StagePeak[] = [];
  for (const stage of options.stages ?? MEASURED_STAGES) {
    const cold = await coldStartMb(stage);
    // tsx, then the text-import hook bench/index.ts registers (the report's browser script loads as text).
    const textHook = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(pathToFileURL(join(ROOT, 'bench/support/text-imports.mjs')).href)})`;
    const text = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--import', textHook, '--expose-gc', fileURLToPath(import.meta.url), '--child', stage, language, String(items)],
      {
        cwd: ROOT,
        encoding: 'utf8',
        maxBuffer: 64 * MB,
      },
    );
    const growth = JSON.parse(text.trim().split('\n').at(-1) ?? '{}') as { mb: number; invocations: number };
    out.push({
      stage,
      node_baseline_mb: round(baseline),
      cold_start_mb: round(cold),
      invocation_mb: round(growth.mb),
      // The sum of the two rounded figures, so the line adds up (rounding the sum could differ by 1).
      peak_mb: round(cold) + round(growth.mb),
      invocations: growth.invocations,
    });
  }
  return out;
}

if (process.argv[2] === '--child') {
  const [stage, language, items] = process.argv.slice(3) as [MeasuredStage, SimLanguage, string];
  const growth = await invocationGrowth(stage, language, Number(items));
  process.stdout.write(`\n${JSON.stringify(growth)}\n`);
}
