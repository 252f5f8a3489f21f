/**
 * cli-progress, loaded when a bar is first drawn (stderr is a terminal): a quiet or piped run
 * — and every other command — never pays its start-up (~40 CPU-ms on our 2-core machines).
 * Its bars are made synchronously, so it is required (it is CommonJS), not imported.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

export function cliProgress(): typeof import('cli-progress') {
  return load('cli-progress') as typeof import('cli-progress');
}
