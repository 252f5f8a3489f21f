// Writes layers/images/bundle/ — the executor code layers/images/Dockerfile copies into every
// image (the code is the same; `--build-arg IMAGE=<id>` picks the image's stage) — with
// esbuild, before `docker build` (which `cdk deploy` runs). `npm run synth` runs it first.
//   handler.mjs   the execute Lambda handler (functions/execute/handler.ts), the image's CMD
//   consumer.mjs  the Fargate queue consumer (functions/execute/consumer.ts)
//   runner.mjs    the untrusted runner function's process (functions/runner/main.ts), the
//                 runner Lambda's entrypoint override (infra/runners.ts)
//   prebuild.mjs  warms the image cache at build time (layers/images/prebuild.ts)
//   pe-supervisor.c  the sandbox supervisor's C source, which the sandbox reads beside its code
//   KotlinCompileServer.java  the compile server's source, which the sandbox reads beside its code
//   python-checker.py  the long-lived Python syntax checker's source, read the same way
//   kotlin-cds-classes.txt  the classes of the Kotlin programs' class-data archive, read the same way
//   pe-gcc-preload.c  the library g++ compiles with (layers/sandbox/languages/gcc-preload.ts), read the same way
// The images are the language registry's (EXECUTOR_IMAGES, layers/core/languages/index.ts):
// the build fails unless the Dockerfile has a stage for each.
// Output is deterministic (no timestamps), so the image asset hash changes only with the code.
import { build } from 'esbuild';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The registry's image ids: core is pure TypeScript, bundled in memory and imported. */
async function registryImages() {
  const registry = await build({
    entryPoints: [join(root, 'layers/core/languages/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'warning',
  });
  const text = registry.outputFiles[0]?.text ?? '';
  const { EXECUTOR_IMAGES } = await import(`data:text/javascript;base64,${Buffer.from(text).toString('base64')}`);
  const ids = EXECUTOR_IMAGES.map((image) => image.id);
  const dockerfile = readFileSync(join(root, 'layers/images/Dockerfile'), 'utf8');
  const missing = ids.filter((id) => !new RegExp(`^FROM base AS ${id}$`, 'm').test(dockerfile));
  if (missing.length > 0) throw new Error(`no stage for executor image(s) ${missing.join(', ')} (expected "FROM base AS <id>" in layers/images/Dockerfile)`);
  return ids;
}
await registryImages();
const entryPoints = {
  handler: join(root, 'functions/execute/handler.ts'),
  consumer: join(root, 'functions/execute/consumer.ts'),
  runner: join(root, 'functions/runner/main.ts'),
  prebuild: join(root, 'layers/images/prebuild.ts'),
};

const outdir = join(root, 'layers/images/bundle');
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
  // kotlin-compiler is installed in the image and located at run time, never bundled;
  // node-llama-cpp (the local-only `gguf:` provider, loaded lazily) never travels to AWS.
  external: ['kotlin-compiler', 'node-llama-cpp'],
  banner: { js: "import { createRequire as __polyevalCreateRequire } from 'node:module'; const require = __polyevalCreateRequire(import.meta.url);" },
  minify: true,
  sourcemap: true,
  legalComments: 'none',
  logLevel: 'warning',
});
copyFileSync(join(root, 'layers/sandbox/kotlin-server/KotlinCompileServer.java'), join(outdir, 'KotlinCompileServer.java'));
copyFileSync(join(root, 'layers/sandbox/pe-supervisor.c'), join(outdir, 'pe-supervisor.c'));
copyFileSync(join(root, 'layers/sandbox/languages/python-checker.py'), join(outdir, 'python-checker.py'));
// Python's zygote (python-zygote.ts looks for it beside the bundle): without it every Python test starts an interpreter of its own.
copyFileSync(join(root, 'layers/sandbox/languages/python-zygote.py'), join(outdir, 'python-zygote.py'));
copyFileSync(join(root, 'layers/sandbox/languages/kotlin-cds-classes.txt'), join(outdir, 'kotlin-cds-classes.txt'));
copyFileSync(join(root, 'layers/sandbox/languages/pe-gcc-preload.c'), join(outdir, 'pe-gcc-preload.c'));
console.log(`bundled ${outdir}`);
