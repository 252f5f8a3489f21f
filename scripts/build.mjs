// Bundles the CLI into dist/polyeval.mjs so `npx polyeval` works right after `npm ci`
// (npm runs `prepare` on install). Dependencies stay external: they are in node_modules.
// The bundle is written beside its target and renamed into place, so a test run reading
// dist/ never sees a half-written file while another build runs. The bundle is made
// executable before the rename: `npx polyeval` runs the `bin` file directly, and a rename
// replaces the file together with its mode (a bundle written 0644 ends in "Permission denied").
import { build } from 'esbuild';
import { chmodSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const tmp = join('dist', `.build-${process.pid}`);
mkdirSync(tmp, { recursive: true });
try {
  await build({
    entryPoints: { polyeval: 'bin/polyeval.ts' },
    outdir: tmp,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
  });
  renameSync(join(tmp, 'polyeval.mjs.map'), join('dist', 'polyeval.mjs.map'));
  chmodSync(join(tmp, 'polyeval.mjs'), 0o755);
  renameSync(join(tmp, 'polyeval.mjs'), join('dist', 'polyeval.mjs'));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
