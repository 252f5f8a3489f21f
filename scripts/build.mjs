// Bundles the CLI into dist/polyeval.mjs so `npx polyeval` works right after `npm ci`
// (npm runs `prepare` on install). Dependencies stay external: they are in node_modules.
import { build } from 'esbuild';

await build({
  entryPoints: { polyeval: 'bin/polyeval.ts' },
  outdir: 'dist',
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
