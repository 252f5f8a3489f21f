import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CPP_FLAGS, CPP_UNIT_TEST_FLAGS, cppCompileArgv, cppRuntime } from '#sandbox/languages/cpp.ts';
import { ensurePch } from '#sandbox/languages/pch.ts';
import { giveToSandbox } from '#sandbox/files.ts';
import { resolveIsolation } from '#sandbox/isolation.ts';
import { createRuntimeContext } from '#sandbox/runtime-context.ts';
import type { LanguageRuntime, RuntimeContext } from '#sandbox/runtime.ts';
import { ensureSupervisor } from '#sandbox/supervisor.ts';
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

// The PCH must also be accepted where runs compile: inside bubblewrap (or the supervisor alone),
// as the sandbox uid, with the runtime's own binds, environment and preload. g++ ignores a .gch
// it cannot see or that does not match without failing the compile (a few hundred CPU-ms more per
// sample, same verdict), so only its -H trace shows it: "!" before the .gch that was used.
describe('precompiled bits/stdc++.h in a sandboxed compilation', () => {
  it("is used by the unit-test runtime's compile command inside the sandbox", async () => {
    const cacheDir = join(dirs.root, 'sandboxed-cache');
    const supervisor = await ensureSupervisor(cacheDir);
    const iso = await resolveIsolation('auto', { supervisor });
    const base = createRuntimeContext(iso, supervisor, { cacheDir, workRoot: dirs.workRoot, kotlinMode: 'cold' });
    // The runtime's exact spec, with -H added to g++'s own arguments.
    const ctx: RuntimeContext = { ...base, sandboxed: (spec) => base.sandboxed({ ...spec, argv: [spec.argv[0] as string, '-H', ...spec.argv.slice(1)] }) };
    const unitTests = cppRuntime.unitTests as LanguageRuntime;
    const build = join(dirs.root, 'sandboxed-build');
    mkdirSync(build, { recursive: true });
    writeFileSync(
      join(build, 'main.cpp'),
      '#include <bits/stdc++.h>\nusing namespace std;\nint main(){ vector<int> v{3,1,2}; sort(v.begin(), v.end()); cout << v[0] << "\\n"; }\n',
    );
    await giveToSandbox(build);
    const result = await unitTests.compile(ctx, build, {});
    expect(result.ok).toBe(true);
    const { dir } = await ensurePch(cacheDir, '/usr/bin/g++', [...CPP_UNIT_TEST_FLAGS]);
    expect(result.diagnostics).toContain(`! ${dir}/bits/stdc++.h.gch`);
    expect(result.diagnostics).not.toMatch(/not used because|\.gch: created by a different/u);
  }, 600_000);
});
