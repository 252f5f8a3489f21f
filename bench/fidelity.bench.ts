/**
 * Issue 12: speed against MXEval on its own problems. Each fidelity set (Kotlin, C++,
 * Python; ../shared/fidelity) is evaluated by one whole `polyeval run` with an empty compile
 * cache — the per-machine precompiled header, supervisor and compile server may exist, as
 * after a first run — and compared with MXEval timed in this bench run (`--mxeval <dir>` or
 * MXEVAL_DIR or ../mxeval, support/mxeval-time.ts); without one, polyeval's time alone and no ratio. Targets: Kotlin ≥ 15×, C++ ≥ 4×, Python ≥ 2.5×.
 *
 * The machine may be shared: every row carries the load average, and the CPU seconds of the
 * run (what the run costs whatever the load) stand beside the wall time.
 */
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchRow } from './index.ts';
import { FIDELITY, freshTmp, kotlinArchiveFor, seedMachineWide } from './support/fidelity-tmp.ts';
import { loadNote, measureRun } from '../sim/measure-run.ts';
import { fidelitySet, mxevalDir, mxevalNote, mxevalTime, NOT_TIMED } from './support/mxeval-time.ts';
const SETS = [
  { set: 'mbkp', language: 'Kotlin', target: 15 },
  { set: 'mbcpp', language: 'C++', target: 4 },
  { set: 'mbpp', language: 'Python', target: 2.5 },
] as const;

export async function run(): Promise<BenchRow[]> {
  if (!existsSync(FIDELITY)) return [{ name: 'fidelity sets', value: Number.NaN, unit: '', note: `${FIDELITY} not found` }];
  const only = process.env['BENCH_FIDELITY_SETS']?.split(',');
  const checkout = mxevalDir();
  const root = mkdtempSync(join(tmpdir(), 'pe-fidelity-bench-'));
  chmodSync(root, 0o755);
  const rows: BenchRow[] = [];
  try {
    const seed = await seedMachineWide(root);
    for (const { set, language, target } of SETS) {
      if (only && !only.includes(set)) continue;
      const mx = await mxevalTime(checkout, fidelitySet(set), root);
      const tmp = freshTmp(root, set, seed);
      await kotlinArchiveFor(tmp);
      const r = await measureRun(['-b', `mxeval:${join(FIDELITY, `${set}.problems.jsonl`)}`, '-m', `replay:${join(FIDELITY, `${set}.samples.jsonl`)}`], {
        home: join(root, `home-${set}`),
        tmp,
      });
      const builds = readdirSync(join(tmp, 'polyeval-cache', 'builds')).length;
      const verdicts = Object.entries(r.summary.verdicts)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      rows.push(
        mx
          ? {
              name: `${language} vs MXEval (${r.summary.items} samples)`,
              value: mx.wallS / r.wallS,
              unit: 'x',
              note: `target ≥ ${target}; polyeval ${r.wallS.toFixed(1)} s vs ${mxevalNote(mx)}; ${loadNote(r)}`,
            }
          : {
              name: `${language} (${r.summary.items} samples)`,
              value: r.wallS,
              unit: 's',
              note: `polyeval ${r.wallS.toFixed(1)} s; ${NOT_TIMED}; ${loadNote(r)}`,
            },
      );
      rows.push({
        name: `${language} run CPU time`,
        value: r.cpuS,
        unit: 's',
        note: `÷ ${availableParallelism()} cores = ${(r.cpuS / availableParallelism()).toFixed(1)} s: the wall time on an idle machine cannot be lower; ${builds} builds compiled; ${verdicts}`,
      });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}
