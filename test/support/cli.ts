/**
 * Runs the built CLI (`dist/polyeval.mjs`, what `npx polyeval` runs) as a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'polyeval.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh --home, inside the run's scratch folder that the global teardown removes. */
export function tempHome(prefix = 'polyeval-home-'): string {
  return mkdtempSync(join(process.env.POLYEVAL_TEST_SCRATCH ?? tmpdir(), prefix));
}

export function startCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = startCli(args, opts);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** Parses the single JSON object `--json` prints; fails loudly with the output otherwise. */
export function parseJson<T = Record<string, unknown>>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not one JSON object (exit ${result.code}):\n${result.stdout}\n--- stderr ---\n${result.stderr}`);
  }
}
