/**
 * The runner function's process (bundled as /var/task/runner.mjs; the runner Lambda's image
 * config runs `node /var/task/runner.mjs` instead of the execute handler): start clean, then
 * serve the Runtime API until an item leaves something behind, then end the process so Lambda
 * resets the environment (runtime-api.ts). It holds nothing worth stealing: its role may do
 * nothing (infra/runners.ts), its subnets have no route and no endpoint, its environment
 * names no bucket, table or queue, and it is given programs and test inputs only.
 */
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { survivors } from '#sandbox/integrity.ts';
import { ContainerSandbox } from '../execute/container-sandbox.ts';
import { postInitError, serveLoop } from './runtime-api.ts';
import { serveInvocation } from './serve.ts';

/** Exit status of a runner that ends its environment on purpose. */
export const DISCARD_EXIT = 75;

const log = (message: string, detail: Record<string, unknown> = {}) => process.stderr.write(`${JSON.stringify({ level: 'warn', message, ...detail })}\n`);

/**
 * A reset keeps /tmp, and could keep a process that escaped the last check: empty /tmp, and
 * refuse to start while any other process of this uid is alive after being killed.
 */
export function startClean(dir: string = tmpdir(), uid: number = process.getuid?.() ?? 0): void {
  for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
  for (const { pid } of survivors(uid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  // A killed process leaves /proc only once the kernel has torn it down: give it a moment.
  let left = survivors(uid);
  for (let waited = 0; left.length > 0 && waited < 5_000; waited += 50) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    left = survivors(uid);
  }
  if (left.length > 0) throw new Error(`processes of this uid survive a kill: ${left.map((p) => `${p.pid} ${p.command}`).join(', ')}`);
}

async function main(): Promise<void> {
  const api = process.env['AWS_LAMBDA_RUNTIME_API'];
  if (!api) throw new Error('AWS_LAMBDA_RUNTIME_API is not set: the runner runs only as a Lambda runtime');
  try {
    startClean();
  } catch (error) {
    await postInitError(api, error as Error);
    throw error;
  }
  const sandbox = new ContainerSandbox({ discard: () => undefined, log });
  const last = await serveLoop(api, (event) => serveInvocation(event, sandbox));
  log(
    'the last item left something behind: ending this environment',
    'response' in last ? { integrity: (last.response as { integrity?: unknown }).integrity } : { error: last.error },
  );
  process.exit(DISCARD_EXIT);
}

// Run only as the entrypoint (`node runner.mjs`), not when a test imports this module.
if (process.argv[1] !== undefined && /runner\.(mjs|js)$|runner[/\\]main\.ts$/.test(process.argv[1])) {
  main().catch((error: unknown) => {
    process.stderr.write(`polyeval runner: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
