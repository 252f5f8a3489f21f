// The test run's own set-up (test/global-setup.ts): one scratch folder per run, removed at its end,
// which is also the workers' TMPDIR — so a folder a test makes with mkdtemp(tmpdir()) and forgets
// to remove goes with the run instead of staying in /tmp. It must stay traversable by other users
// (a sandbox uid reaches work folders under it: layers/sandbox/supervisor.ts ensureSharedDir), and
// the caches kept under tmpdir() on purpose (sandbox builds and PCH, tiny GGUF models) must outlive it.
import { mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSandboxCacheDir } from '#sandbox/executor.ts';
import { SHARED_TMP_CACHES } from '../global-setup.ts';

describe("the test run's scratch folder", () => {
  it("is the workers' tmpdir(), and other users can traverse it", () => {
    const scratch = process.env.POLYEVAL_TEST_SCRATCH;
    expect(scratch).toBeDefined();
    expect(tmpdir()).toBe(scratch);
    const made = mkdtempSync(join(tmpdir(), 'polyeval-scratch-probe-'));
    try {
      expect(dirname(made)).toBe(scratch);
      expect(statSync(scratch ?? '').mode & 0o001).toBe(0o001);
    } finally {
      rmSync(made, { recursive: true, force: true });
    }
  });

  it("keeps the sandbox cache and the GGUF models in the system's temp folder, not in the run's scratch", () => {
    const system = dirname(process.env.POLYEVAL_TEST_SCRATCH ?? '');
    expect(SHARED_TMP_CACHES).toContain('polyeval-gguf');
    for (const cache of SHARED_TMP_CACHES) expect(realpathSync(join(tmpdir(), cache))).toBe(realpathSync(join(system, cache)));
    expect(realpathSync(defaultSandboxCacheDir())).toBe(realpathSync(join(system, 'polyeval-cache')));
  });
});
