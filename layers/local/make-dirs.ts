/**
 * `mkdir -p` for paths a user names (`--home`, `--output`). Node's recursive mkdir
 * (`mkdir(path, { recursive: true })`, MKDirpSync/MKDirpAsync in src/node_file.cc, Node 20
 * and 22) never returns under /proc: mkdir of a missing child there answers ENOENT, Node
 * goes up to create the parent, gets EEXIST, and tries the child again, forever. Creating
 * the missing folders one by one, from the nearest one that exists, fails at once with the
 * folder that cannot be made.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InputError } from '#core/errors.ts';

/** The folders to create, outermost first. */
function missingFolders(dir: string): string[] {
  const missing: string[] = [];
  for (let current = resolve(dir); !existsSync(current); current = dirname(current)) {
    missing.unshift(current);
    if (dirname(current) === current) break;
  }
  return missing;
}

const existed = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'EEXIST';

/** A folder that cannot be made is the path the user gave (or its parent), named. */
function cannotCreate(folder: string, err: unknown): InputError {
  const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  return new InputError(`cannot create folder ${folder} (${code})`, {}, { cause: err });
}

/** Creates `dir` and its missing parents; throws an InputError naming the first folder it cannot make (never loops). */
export function makeDirsSync(dir: string): void {
  for (const folder of missingFolders(dir)) {
    try {
      mkdirSync(folder);
    } catch (err) {
      if (!existed(err)) throw cannotCreate(folder, err);
    }
  }
}

/** Creates `dir` and its missing parents; rejects with an InputError naming the first folder it cannot make (never loops). */
export async function makeDirs(dir: string): Promise<void> {
  for (const folder of missingFolders(dir)) {
    await mkdir(folder).catch((err: unknown) => {
      if (!existed(err)) throw cannotCreate(folder, err);
    });
  }
}
