// Bundles the CLI into dist/polyeval.mjs so `npx polyeval` works right after `npm ci`
// (npm runs `prepare` on install). Dependencies stay external (they are in node_modules),
// except the few in INLINE that every command loads at start: zod is ~170 small ES modules,
// each resolved, read and compiled on its own by Node's ESM loader, which cost ~0.1 CPU-s
// of every command's start on our 2-core machines; bundled, V8 compiles them as one script
// (measured 2026-12-02, docs/development.md). hyparquet and hyparquet-writer likewise: ~55 ES
// modules every command loaded at start for the records' Parquet writer, ~25 CPU-ms of each
// start (2026-12-07). They stay pinned dependencies in package.json.
// `npx polyeval` runs this bundle through the workspace packages/cli's shim (see there why).
// The bundle is written beside its target and renamed into place, so a test run reading
// dist/ never sees a half-written file while another build runs. The bundle is made
// executable before the rename: a user may run `dist/polyeval.mjs` directly, and a rename
// replaces the file together with its mode (a bundle written 0644 ends in "Permission denied").
import { build } from 'esbuild';
import { chmodSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Packages bundled into the CLI rather than loaded from node_modules (pure ES modules only). */
const INLINE = new Set(['zod', 'hyparquet', 'hyparquet-writer']);

/** Every bare import (`pkg`, `@scope/pkg`, `pkg/sub`) stays external unless its package is in INLINE. */
const externalUnlessInlined = {
  name: 'external-unless-inlined',
  setup(b) {
    b.onResolve({ filter: /^[^./#]/ }, (args) => {
      if (args.kind === 'entry-point' || args.path.startsWith('node:')) return undefined;
      const parts = args.path.split('/');
      const name = args.path.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
      return INLINE.has(name) ? undefined : { external: true };
    });
  },
};

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
    plugins: [externalUnlessInlined],
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
