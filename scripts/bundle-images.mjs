// Writes layers/images/<image>/bundle/ — the executor code each Dockerfile copies in — with
// esbuild, before `docker build` (which `cdk deploy` runs). `npm run synth` runs it first.
//   handler.mjs   the execute Lambda handler (functions/execute/handler.ts), the image's CMD
//   consumer.mjs  the Fargate queue consumer (functions/execute/consumer.ts)
//   runner.mjs    the untrusted runner function's process (functions/runner/main.ts), the
//                 runner Lambda's entrypoint override (infra/runners.ts)
//   prebuild.mjs  warms the image cache at build time (layers/images/prebuild.ts)
// The Kotlin image also gets KotlinCompileServer.java, which the sandbox reads beside its code.
// Output is deterministic (no timestamps), so the image asset hash changes only with the code.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Every folder of layers/images with a Dockerfile (infra/languages.ts lists the same ids).
const images = readdirSync(join(root, 'layers/images')).filter((d) => existsSync(join(root, 'layers/images', d, 'Dockerfile'))).sort();
const entryPoints = {
  handler: join(root, 'functions/execute/handler.ts'),
  consumer: join(root, 'functions/execute/consumer.ts'),
  runner: join(root, 'functions/runner/main.ts'),
  prebuild: join(root, 'layers/images/prebuild.ts'),
};

for (const image of images) {
  const outdir = join(root, 'layers/images', image, 'bundle');
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  await build({
    entryPoints,
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    // kotlin-compiler is installed in the image and located at run time, never bundled.
    external: ['kotlin-compiler'],
    banner: { js: "import { createRequire as __polyevalCreateRequire } from 'node:module'; const require = __polyevalCreateRequire(import.meta.url);" },
    minify: true,
    sourcemap: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  if (image === 'kotlin') {
    copyFileSync(join(root, 'layers/sandbox/kotlin-server/KotlinCompileServer.java'), join(outdir, 'KotlinCompileServer.java'));
  }
  console.log(`bundled ${outdir}`);
}
