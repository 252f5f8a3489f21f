/**
 * Read commands (`list runs`, `query`, `leaderboard`) over a home that has nothing to read: a
 * mistyped `--home` or POLYEVAL_HOME would otherwise answer "no runs" as if that were the truth.
 * One note on stderr says which folder was read and why it holds nothing; stdout (and `--json`)
 * and the exit code stay as they are, so a fresh home still lists no runs.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Home } from '#app/local/home.ts';

/** The note for a home with no polyeval data, or undefined when it holds some. */
export function noDataNote(home: Pick<Home, 'root' | 'storeRoot'>): string | undefined {
  const where = '(the home comes from --home, else POLYEVAL_HOME, else ./.polyeval)';
  if (!existsSync(home.root)) return `note: ${home.root} does not exist: no run was recorded there ${where}`;
  if (!existsSync(home.storeRoot) && !existsSync(join(home.root, 'ledger'))) {
    return `note: ${home.root} holds no polyeval data (no store/ or ledger/): no run was recorded there ${where}`;
  }
  return undefined;
}

/** Writes {@link noDataNote} to stderr when there is one. */
export function noteIfNoData(home: Pick<Home, 'root' | 'storeRoot'>): void {
  const note = noDataNote(home);
  if (note) process.stderr.write(`polyeval: ${note}\n`);
}
