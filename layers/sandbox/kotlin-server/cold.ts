/**
 * The cold path: one `kotlinc` process per compilation. Kept for comparison (the bench) and
 * as the fallback when the compile server cannot start.
 */
import { spawn } from 'node:child_process';
import { jvmEnv, kotlinHome } from './toolchain.ts';

/** What one cold compilation produced. */
export interface ColdResult {
  exitCode: number | null;
  timedOut: boolean;
  /** stdout and stderr of `kotlinc`, interleaved as they arrived (capped). */
  diagnostics: string;
}

const MAX_DIAGNOSTICS = 1 << 20;

/**
 * Runs `kotlinc <args>` in `cwd` with the minimal JVM environment; on timeout kills the
 * whole process group (the bash script and its JVM).
 */
export function runKotlinc(args: readonly string[], cwd: string, timeoutMs: number): Promise<ColdResult> {
  return new Promise((resolve) => {
    const child = spawn(kotlinHome().kotlinc, [...args], { cwd, env: jvmEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let timedOut = false;
    const append = (chunk: Buffer): void => {
      if (out.length < MAX_DIAGNOSTICS) out += chunk.toString('utf8');
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, timeoutMs);
    process.once('exit', killGroup);
    child.once('error', (error) => {
      clearTimeout(timer);
      process.removeListener('exit', killGroup);
      resolve({ exitCode: null, timedOut: false, diagnostics: `cannot start kotlinc: ${error.message}` });
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      process.removeListener('exit', killGroup);
      resolve({ exitCode: code, timedOut, diagnostics: out });
    });
  });
}
