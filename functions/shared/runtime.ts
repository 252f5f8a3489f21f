/**
 * Facts about the container a cloud function runs in: where the bundled suites are, a
 * writable cache, the code version (a Lambda bundle has no git checkout). Kept free of the
 * local adapters (DuckDB) and the providers, so every function's bundle stays small.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Manifest } from '#core/run/index.ts';
import { codeVersion, packageVersions } from '#app/shared/versions.ts';

/** Where `sample/` is: POLYEVAL_PACKAGE_ROOT, else the package root, else the bundle's folder (Lambda: /var/task). */
export function cloudPackageRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.POLYEVAL_PACKAGE_ROOT) return resolve(env.POLYEVAL_PACKAGE_ROOT);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'sample'))) return dir;
    dir = dirname(dir);
  }
  return env.LAMBDA_TASK_ROOT ?? process.cwd();
}

/** A writable cache: Lambda's only writable place is /tmp (POLYEVAL_CACHE may be read-only). */
export function writableCacheDir(): string {
  return join(tmpdir(), 'polyeval-cache');
}

/** The code version: from package.json and git where present, else POLYEVAL_VERSION / POLYEVAL_REVISION. */
export function cloudCodeVersion(root: string, env: NodeJS.ProcessEnv = process.env): Manifest['code'] {
  try {
    return codeVersion(root);
  } catch {
    return { version: env.POLYEVAL_VERSION ?? 'unknown', revision: env.POLYEVAL_REVISION ?? null, dirty: null };
  }
}

export { packageVersions };
