/**
 * The CDK app's entry point (`npx tsx bin/app.ts`, what cdk.json's `app` runs) given a context
 * value the deployment cannot take: one line naming the key, why and what fits, exit 1 — not an
 * uncaught-exception dump (source excerpt, stack, Node.js version). The context reaches the app
 * as the CDK CLI hands it over: the CDK_CONTEXT_JSON variable (aws-cdk-lib 2.276.0,
 * cx-api `CONTEXT_ENV`), read by `new App()`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/paths.ts';

function synthWith(context: Record<string, unknown>): { status: number | null; stderr: string } {
  const out = mkdtempSync(join(process.env.POLYEVAL_TEST_SCRATCH ?? tmpdir(), 'polyeval-cdk-out-'));
  const result = spawnSync(join(PROJECT_ROOT, 'node_modules', '.bin', 'tsx'), ['bin/app.ts'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', CDK_DEFAULT_REGION: 'eu-west-1', CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: out },
  });
  return { status: result.status, stderr: result.stderr };
}

describe('cdk synth with a context value that does not fit', () => {
  it.each([
    [{ generateMaxConcurrency: 460 }, 'context "generateMaxConcurrency": generateMaxConcurrency 460 + plan 10'],
    [{ runnerReservedConcurrency: 5, fargateLane: true }, 'context "runnerReservedConcurrency": 5 per runner cannot hold its judges'],
  ])('%j: one line naming the key (exit 1), no stack', (context, line) => {
    const result = synthWith(context);
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(new RegExp(`^${line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(result.stderr).not.toMatch(/\n\s+at |Node\.js v/);
  });
});
