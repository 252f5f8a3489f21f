/**
 * Runs at `docker build` (bundled to `prebuild.mjs` by scripts/bundle-images.mjs): warms the
 * image's read-only cache `$POLYEVAL_CACHE` with exactly the sandbox's own code, so the flags
 * and directory names cannot drift from what the executor looks for at run time.
 *   supervisor: pe-supervisor (every image; the Python and Kotlin images then remove gcc,
 *               which nothing needs at run time)
 *   <image>:    the `prebuild` of every runtime of that image's languages (EXECUTOR_IMAGES):
 *               the C++ precompiled headers (cpp), the Kotlin compile server (kotlin), the
 *               pinned lodash MXEval's JavaScript tests require (javascript); none elsewhere
 * Usage: node prebuild.mjs <supervisor|image id>
 */
import { EXECUTOR_IMAGES } from '../core/languages/index.ts';
import { LANGUAGE_RUNTIMES } from '../sandbox/languages/index.ts';
import { buildSupervisor } from '../sandbox/supervisor.ts';

const cache = process.env['POLYEVAL_CACHE'];
if (!cache) throw new Error('POLYEVAL_CACHE is not set: the image cache directory is unknown');
const target = process.argv[2];
if (target === 'supervisor') {
  console.log(`sandbox supervisor built at ${await buildSupervisor(cache)}`);
} else {
  const image = EXECUTOR_IMAGES.find((i) => i.id === target);
  if (!image)
    throw new Error(`unknown prebuild target ${JSON.stringify(target)}: expected supervisor or one of ${EXECUTOR_IMAGES.map((i) => i.id).join(', ')}`);
  for (const runtime of LANGUAGE_RUNTIMES) {
    if (image.languages.includes(runtime.id) && runtime.prebuild) console.log(await runtime.prebuild(cache));
  }
}
