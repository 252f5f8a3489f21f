/**
 * Builds the precompiled `bits/stdc++.h` once per machine (and at image build in the cloud)
 * into `<cacheDir>/pch-<hash of compiler version and flags>/bits/stdc++.h.gch`. g++ silently
 * ignores a PCH built with other flags, so the directory name pins the exact flags, and
 * compiles pass `-Winvalid-pch` so a mismatch shows in diagnostics.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureSharedDir } from '../supervisor.ts';
import { COMPILER_ENV, compilerVersion } from './native.ts';

const run = promisify(execFile);

/** Where the header of this compiler lives (`g++ -print-file-name` is not enough for bits/). */
async function findHeader(cxx: string): Promise<string | undefined> {
  try {
    const { stderr } = await run(cxx, ['-xc++', '-E', '-v', '/dev/null'], { env: COMPILER_ENV, timeout: 30_000 });
    const dirs =
      stderr
        .split('#include <...> search starts here:')[1]
        ?.split('End of search list.')[0]
        ?.split('\n')
        .map((l) => l.trim())
        .filter(Boolean) ?? [];
    for (const d of dirs) {
      const path = join(d, 'bits', 'stdc++.h');
      try {
        await access(path);
        return path;
      } catch {
        // keep looking
      }
    }
  } catch {
    // no compiler
  }
  return undefined;
}

/** Returns the include directory holding the PCH, or undefined (clean fallback) with why. */
export async function ensurePch(cacheDir: string, cxx: string, flags: string[]): Promise<{ dir: string | undefined; detail: string }> {
  const version = await compilerVersion(cxx);
  if (!version) return { dir: undefined, detail: `${cxx} not found` };
  const hash = createHash('sha256')
    .update(`${cxx} ${version} ${flags.join(' ')}`)
    .digest('hex')
    .slice(0, 12);
  const dir = join(cacheDir, `pch-${hash}`);
  const gch = join(dir, 'bits', 'stdc++.h.gch');
  try {
    await access(gch);
    return { dir, detail: `precompiled bits/stdc++.h in ${dir}` };
  } catch {
    // build it
  }
  const header = await findHeader(cxx);
  if (!header) return { dir: undefined, detail: 'bits/stdc++.h not found: compiling without a precompiled header' };
  await ensureSharedDir(cacheDir);
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  try {
    await mkdir(join(tmp, 'bits'), { recursive: true });
    // The header sits beside its .gch so the directory also works when the PCH is rejected.
    await writeFile(join(tmp, 'bits', 'stdc++.h'), await readFile(header));
    await run(cxx, [...flags, '-x', 'c++-header', join(tmp, 'bits', 'stdc++.h'), '-o', join(tmp, 'bits', 'stdc++.h.gch')], {
      env: COMPILER_ENV,
      timeout: 300_000,
    });
    await chmod(tmp, 0o755);
    await chmod(join(tmp, 'bits'), 0o755);
    await chmod(join(tmp, 'bits', 'stdc++.h.gch'), 0o644);
    await chmod(join(tmp, 'bits', 'stdc++.h'), 0o644);
    try {
      await rename(tmp, dir);
    } catch {
      // another process won the race; its PCH is identical
    }
    return { dir, detail: `precompiled bits/stdc++.h built in ${dir}` };
  } catch (cause) {
    return { dir: undefined, detail: `precompiled header build failed, compiling without it: ${String(cause).split('\n')[0]}` };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
