import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CPP_FLAGS, cppCompileArgv } from '#sandbox/languages/cpp.ts';
import { ensurePch } from '#sandbox/languages/pch.ts';
import { scratch } from './helpers.ts';

const dirs = scratch('pch');
afterAll(() => rmSync(dirs.root, { recursive: true, force: true }));

/** Compiles with the runtime's exact command plus -H, which lists every header used on stderr ("!" marks a used PCH). */
function compileTrace(pch: string | undefined): { status: number | null; trace: string } {
  const build = join(dirs.root, `b-${pch ? 'pch' : 'plain'}`);
  mkdirSync(build, { recursive: true });
  writeFileSync(
    join(build, 'main.cpp'),
    '#include <bits/stdc++.h>\nint main(){ std::vector<int> v{3,1,2}; std::sort(v.begin(), v.end()); std::cout << v[0] << "\\n"; }\n',
  );
  const [cxx, ...args] = cppCompileArgv(build, pch);
  const r = spawnSync(cxx as string, ['-H', ...args], { env: { PATH: '/usr/bin:/bin' }, encoding: 'utf8' });
  return { status: r.status, trace: r.stderr };
}

describe('precompiled bits/stdc++.h', () => {
  it('is built with the flags programs compile with, and is used by their compile command', async () => {
    const { dir } = await ensurePch(dirs.cacheDir, '/usr/bin/g++', CPP_FLAGS);
    expect(dir).toBeDefined();
    const { status, trace } = compileTrace(dir);
    expect(status).toBe(0);
    expect(trace).toMatch(/^! .*stdc\+\+\.h\.gch/mu);
    expect(trace).not.toMatch(/not used because/u);
  }, 600_000);

  it('falls back cleanly to the plain header when no PCH exists', () => {
    const { status, trace } = compileTrace(undefined);
    expect(status).toBe(0);
    expect(trace).not.toContain('.gch');
    expect(trace).toMatch(/bits\/stdc\+\+\.h/u);
  }, 600_000);
});
