#!/usr/bin/env node
// `npx polyeval` in a checkout runs this file: npm ci links it as node_modules/.bin/polyeval.
// It only loads the CLI bundle, in this same process, so argv, stdin, signals and exit codes
// are the bundle's own, and the bundle resolves its files (sample/, docs, the sandbox's
// sources, package.json's version) from its own URL, dist/polyeval.mjs, as before.
//
// Why the bin lives in this workspace and not in the root package.json (npm 11.19.1,
// libnpmexec 10.3.2, lib/index.js `exec`, lines 149-178): when the ROOT package.json has
// `bin.polyeval` (`hasPkgBin` over pkgPaths, which is the root), npx pushes the root as a
// package to install and runs Arborist `loadActual()` over the whole installed tree first
// (~0.6-0.75 s on our 2-core machines); when it has none, `localFileExists`
// (lib/file-exists.js) finds node_modules/.bin/polyeval and npx runs it at once.
// test/e2e/npx-fast-path.test.ts fails if the root regains that bin or this link is lost.
import { existsSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const bundle = new URL('../../dist/polyeval.mjs', import.meta.url);
if (!existsSync(fileURLToPath(bundle))) {
  process.stderr.write(`polyeval: ${fileURLToPath(bundle)} is not built yet: run \`npm run build\` (npm ci runs it too)\n`);
  process.exit(1);
}
await import(bundle.href);
