/**
 * Where polyeval keeps its local state: `--home`, else POLYEVAL_HOME, else `./.polyeval`.
 * The store mirrors S3 keys under `<home>/store`, the ledger lives in `<home>/ledger`.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, statSync } from 'node:fs';
import { InputError } from '#core/errors.ts';
import { FileRunLedger, FsBlobStore } from '#local/index.ts';

export interface Home {
  root: string;
  storeRoot: string;
  cacheDir: string;
  store: FsBlobStore;
  ledger: FileRunLedger;
}

export function openHome(option: string | undefined, env: NodeJS.ProcessEnv = process.env): Home {
  const root = resolve(option ?? env.POLYEVAL_HOME ?? '.polyeval');
  // A home that is a file would fail deep in the first write; say so now (it is created when missing).
  if (existsSync(root) && !statSync(root).isDirectory()) {
    throw new InputError(`${root} is not a folder (give --home a folder, or a path where one can be created)`, { field: 'home' });
  }
  const storeRoot = resolve(root, 'store');
  return {
    root,
    storeRoot,
    cacheDir: resolve(env.POLYEVAL_CACHE ?? resolve(root, 'cache')),
    store: new FsBlobStore(storeRoot),
    ledger: new FileRunLedger(resolve(root, 'ledger')),
  };
}

/** The package's root folder (where `sample/` and `package.json` live), from src or dist. */
export function packageRoot(): string {
  let dir = fileURLToPath(new URL('.', import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(resolve(dir, 'package.json')) && existsSync(resolve(dir, 'sample'))) return dir;
    dir = resolve(dir, '..');
  }
  return process.cwd();
}
