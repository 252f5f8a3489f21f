/**
 * Runs at `docker build` (bundled to `prebuild.mjs` by scripts/bundle-images.mjs): warms the
 * image's read-only cache `$POLYEVAL_CACHE` with exactly the sandbox's own code, so the flags
 * and directory names cannot drift from what the executor looks for at run time.
 *   supervisor: pe-supervisor (every image; the Python and Kotlin images then remove gcc,
 *               which nothing needs at run time)
 *   cpp:    the precompiled bits/stdc++.h (CPP_FLAGS: -O2 -std=gnu++17 -pipe; and
 *           CPP_UNIT_TEST_FLAGS, MXEval's g++ defaults, for unit-test programs)
 *   kotlin: the compile server classes
 *   javascript: the pinned lodash MXEval's JavaScript tests require
 * Usage: node prebuild.mjs <supervisor|cpp|kotlin|javascript>
 */
import { ensureServerBuilt } from '../sandbox/kotlin-server/build.ts';
import { CPP_FLAGS, CPP_UNIT_TEST_FLAGS } from '../sandbox/languages/cpp.ts';
import { installModules } from '../sandbox/languages/javascript.ts';
import { ensurePch } from '../sandbox/languages/pch.ts';
import { buildSupervisor } from '../sandbox/supervisor.ts';

const cache = process.env['POLYEVAL_CACHE'];
if (!cache) throw new Error('POLYEVAL_CACHE is not set: the image cache directory is unknown');
const target = process.argv[2];
if (target === 'supervisor') {
  console.log(`sandbox supervisor built at ${await buildSupervisor(cache)}`);
} else if (target === 'cpp') {
  for (const flags of [CPP_FLAGS, CPP_UNIT_TEST_FLAGS]) {
    const pch = await ensurePch(cache, '/usr/bin/g++', flags);
    if (!pch.dir) throw new Error(`precompiled header not built: ${pch.detail}`);
    console.log(pch.detail);
  }
} else if (target === 'kotlin') {
  console.log(`Kotlin compile server built in ${await ensureServerBuilt()}`);
} else if (target === 'javascript') {
  console.log(`lodash for MXEval's JavaScript tests in ${installModules({ cacheDir: cache })}`);
} else {
  throw new Error(`unknown prebuild target ${JSON.stringify(target)}: expected supervisor, cpp, kotlin or javascript`);
}
