/**
 * Temporary directories for timing runs on the fidelity sets (../shared/fidelity): a TMPDIR
 * whose sandbox cache holds the machine-wide builds (supervisor, precompiled headers, the
 * Kotlin compile server, stdlib copy) but no compiled sample — a cold compile cache, as a
 * user's second run on a new dataset has.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildProgramArchive } from '../../layers/sandbox/languages/kotlin-cds.ts';
import { measureRun, ROOT } from '../../sim/measure-run.ts';

export const FIDELITY = join(ROOT, '..', 'shared', 'fidelity');

/** A TMPDIR under `root` named `name`, its sandbox cache copied from `seed` without the builds. */
export function freshTmp(root: string, name: string, seed: string | undefined): string {
  const tmp = join(root, name);
  mkdirSync(tmp, { recursive: true });
  chmodSync(tmp, 0o755);
  if (seed && existsSync(join(seed, 'polyeval-cache'))) {
    cpSync(join(seed, 'polyeval-cache'), join(tmp, 'polyeval-cache'), {
      recursive: true,
      filter: (src) => !src.includes(`${join('polyeval-cache', 'builds')}`),
    });
  }
  return tmp;
}

/**
 * Dumps the Kotlin programs' class-data archive for `tmp`'s sandbox cache, untimed, as a
 * user's earlier run on the machine would have: an archive names the stdlib copy's path and
 * modification time, so the seed's copied one never matches (layers/sandbox/languages/kotlin-cds.ts).
 */
export async function kotlinArchiveFor(tmp: string): Promise<void> {
  const cache = join(tmp, 'polyeval-cache');
  const stdlib = existsSync(cache) ? readdirSync(cache).find((name) => /^kotlin-stdlib-[0-9a-f]{16}\.jar$/u.test(name)) : undefined;
  if (stdlib) await buildProgramArchive(cache, join(cache, stdlib));
}

/**
 * One throw-away run per language builds the machine-wide pieces (not timed); returns the
 * seed TMPDIR. `kotlin: false` skips the compile server's build when no Kotlin set is timed.
 */
export async function seedMachineWide(root: string, opts: { kotlin?: boolean } = {}): Promise<string> {
  const seed = freshTmp(root, 'seed', undefined);
  const runs = [['-b', 'sample/rocode', '--language', 'cpp,python'], ...(opts.kotlin === false ? [] : [['-b', 'sample/kotlin-humaneval']])];
  for (const args of runs) {
    await measureRun([...args, '-m', 'reference', '--limit', '1'], { home: join(root, 'seed-home'), tmp: seed });
  }
  return seed;
}
