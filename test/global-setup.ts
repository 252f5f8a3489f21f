// Builds the CLI bundle once before the suite, so e2e tests run exactly what `npx polyeval`
// runs. A failed build removes the old bundle (e2e tests then fail, loudly) but lets the
// unit and integration tests run.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  // Test homes live in one scratch folder per run, removed at the end (workers inherit the env).
  const scratch = mkdtempSync(join(tmpdir(), 'polyeval-tests-'));
  chmodSync(scratch, 0o755);
  process.env.POLYEVAL_TEST_SCRATCH = scratch;
  try {
    execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  } catch {
    rmSync('dist/polyeval.mjs', { force: true });
    process.stderr.write('global-setup: the CLI bundle did not build; e2e tests will fail\n');
  }
  return () => rmSync(scratch, { recursive: true, force: true });
}
