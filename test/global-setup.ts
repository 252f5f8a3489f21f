// One scratch folder per test run for test homes, removed at the end (workers inherit the env).
// Every tier lists this set-up; the first one to run creates the folder and the others reuse it.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  if (process.env.POLYEVAL_TEST_SCRATCH) return () => undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'polyeval-tests-'));
  chmodSync(scratch, 0o755);
  process.env.POLYEVAL_TEST_SCRATCH = scratch;
  return () => rmSync(scratch, { recursive: true, force: true });
}
