// One scratch folder per test run for test homes, removed at the end (workers inherit the env).
// Every tier lists this set-up; the first one to run creates the folder and the others reuse it.
// It is the workers' TMPDIR too (os.tmpdir() reads it at each call): every folder a test makes with
// mkdtemp(tmpdir()) goes with it, so a test that forgets its own clean-up no longer leaves it in
// /tmp (thousands of them had filled the disk). The caches that live under tmpdir() by design —
// the sandbox's builds, supervisor and C++ PCH (layers/sandbox/executor.ts defaultSandboxCacheDir)
// and the tiny GGUF models (sim/gguf-writer.ts) — stay in the system's temp folder across runs:
// the scratch holds links to them (removing the scratch removes the links only).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folders under tmpdir() that are caches kept between runs, not a run's leftovers. */
export const SHARED_TMP_CACHES = ['polyeval-cache', 'polyeval-gguf'] as const;

export default function setup(): () => void {
  if (process.env.POLYEVAL_TEST_SCRATCH) return () => undefined;
  const system = tmpdir();
  const scratch = mkdtempSync(join(system, 'polyeval-tests-'));
  chmodSync(scratch, 0o755);
  for (const cache of SHARED_TMP_CACHES) {
    mkdirSync(join(system, cache), { recursive: true });
    symlinkSync(join(system, cache), join(scratch, cache));
  }
  process.env.POLYEVAL_TEST_SCRATCH = scratch;
  process.env.TMPDIR = scratch;
  return () => rmSync(scratch, { recursive: true, force: true });
}
