// `npx cdk deploy` on a fresh clone: cdk.json's `build` step (run by the CDK CLI before every
// synth) writes the executor code every image COPYs (layers/images/bundle/), and git never
// tracks that output.
import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/paths.ts';

const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { build?: string };

describe('cdk.json build step', () => {
  it('bundles every executor image, so cdk deploy needs no manual step', () => {
    expect(cdkJson.build).toBe('node scripts/bundle-images.mjs');

    execSync(cdkJson.build ?? 'false', { cwd: PROJECT_ROOT, stdio: 'pipe', timeout: 240_000 });

    for (const file of [
      'handler.mjs',
      'consumer.mjs',
      'runner.mjs',
      'prebuild.mjs',
      'pe-supervisor.c',
      'pe-gcc-preload.c',
      'KotlinCompileServer.java',
      'python-checker.py',
      'kotlin-cds-classes.txt',
    ]) {
      expect(existsSync(path.join(PROJECT_ROOT, 'layers/images/bundle', file)), `bundle/${file}`).toBe(true);
    }

    // What `docker build` runs: the bundle's prebuild compiles the supervisor from the C source beside it.
    const cache = mkdtempSync(path.join(tmpdir(), 'polyeval-image-cache-'));
    try {
      const out = execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'layers/images/bundle/prebuild.mjs'), 'supervisor'], {
        env: { ...process.env, POLYEVAL_CACHE: cache },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(out).toMatch(/sandbox supervisor built at .*pe-supervisor-[0-9a-f]{12}/);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }, 300_000);

  it('keeps layers/images/bundle/ out of git', () => {
    // check-ignore exits 1 (execFileSync throws) when no rule ignores the path.
    const rule = execFileSync('git', ['check-ignore', '--no-index', '-v', 'layers/images/bundle/handler.mjs'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    expect(rule).toMatch(/bundle/);
  });
});
