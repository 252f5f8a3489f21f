// One scratch folder per test run for test homes, removed at the end (workers inherit the env).
// Every tier lists this set-up; the first one to run creates the folder and the others reuse it.
// It is the workers' TMPDIR too (os.tmpdir() reads it at each call): every folder a test makes with
// mkdtemp(tmpdir()) goes with it, so a test that forgets its own clean-up no longer leaves it in
// /tmp (thousands of them had filled the disk).
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  if (process.env.POLYEVAL_TEST_SCRATCH) return () => undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'polyeval-tests-'));
  chmodSync(scratch, 0o755);
  process.env.POLYEVAL_TEST_SCRATCH = scratch;
  process.env.TMPDIR = scratch;
  return () => rmSync(scratch, { recursive: true, force: true });
}
