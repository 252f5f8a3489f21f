// The deployed self-test end to end on moto_server: POST /selftest through the real api
// handler, the runs through the real plan, generate, execute and aggregate handlers (the
// local sandbox standing in for the deployed judge and runner), GET /selftest/{id} read into
// the report `polyeval remote selftest` prints — with a runner that leaks its credentials
// into Python programs' environment, which the report must call an escape, and only that.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutionJob, Executor } from '#core/ports.ts';
import { HOSTILE_PROBES } from '#core/selftest/suite.ts';
import type { SelftestStarted, SelftestView } from '#app/cloud/selftest.ts';
import { selftestText } from '../../../bin/cli/selftest-command.ts';
import { apiEvent, postJson } from './api-events.ts';
import { apiClient, drive, startCloud, type Cloud } from './cloud-harness.ts';

let cloud: Cloud;
/** Whether the executors leak (set by the test that plays that runner). */
let leak = false;

/**
 * A runner that hands Python programs its credentials, as one that forgot to clear the
 * environment would (Lambda sets AWS_SECRET_ACCESS_KEY in every function's environment).
 */
function leaky(inner: Executor): Executor {
  const leakInto = (job: ExecutionJob): ExecutionJob =>
    leak && job.language === 'python' ? { ...job, code: `import os\nos.environ["AWS_SECRET_ACCESS_KEY"] = "leaked"\n${job.code}` } : job;
  return {
    execute: (job) => inner.execute(leakInto(job)),
    toolchains: (options, languages) => inner.toolchains(options, languages),
    prepare: (languages) => inner.prepare?.(languages),
    close: () => inner.close(),
  };
}

beforeAll(async () => {
  cloud = await startCloud({ executeLanguages: ['c'], wrapExecutor: leaky });
}, 120_000);

afterAll(async () => {
  await cloud?.stop();
});

const { call } = apiClient(() => cloud);

async function selftest(body?: Record<string, unknown>): Promise<{ started: SelftestStarted; view: SelftestView }> {
  const response = await call(body ? postJson('/selftest', body) : apiEvent('POST', '/selftest'));
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  const started = response.body as unknown as SelftestStarted;
  const running = await call(apiEvent('GET', `/selftest/${started.selftest_id}`));
  expect(running.body).toMatchObject({ status: 'running' });
  await drive(cloud);
  const view = await call(apiEvent('GET', `/selftest/${started.selftest_id}`));
  expect(view.status, JSON.stringify(view.body)).toBe(200);
  return { started, view: view.body as unknown as SelftestView };
}

describe('the deployed self-test', () => {
  it('runs the reference suites and every probe through each image and reports the leaked credentials as the one escape', async () => {
    leak = true;
    const { started, view } = await selftest({ languages: ['python', 'c'] });
    expect(started.runs.map((r) => `${r.role}:${r.language}:${r.image}`)).toEqual([
      'reference:python:python',
      'reference:c:cpp',
      'hostile:python:python',
      'hostile:c:cpp',
    ]);
    if (view.status !== 'done') throw new Error(`the self-test did not finish: ${JSON.stringify(view)}`);
    const text = selftestText(view.selftest_id, view);
    expect(view, text).toMatchObject({ ok: false, escaped: 1, errors: 0, referenceFailed: 0 });
    for (const image of ['python', 'cpp']) {
      const report = view.images.find((i) => i.image === image);
      expect(report?.isolation.length, `${image}: ${text}`).toBeGreaterThan(0);
      expect(report?.reference?.failed, text).toEqual([]);
      expect(report?.reference?.total).toBeGreaterThan(0);
    }
    // Every C probe held; of Python's, all but the one that found the leaked variable.
    expect(view.images.find((i) => i.image === 'cpp')?.probes.map((p) => p.result)).toEqual(HOSTILE_PROBES.filter((p) => p.language === 'c').map(() => 'held'));
    expect(view.images.find((i) => i.image === 'cpp')?.ok).toBe(true);
    expect(text).toMatch(/reading the parent environment and \/proc\/<pid>\/environ\s+python\s+WA\s+ESCAPED/u);
    expect(text).toMatch(/reading the parent environment and \/proc\/<pid>\/environ\s+c\s+OK\s+HELD/u);
    expect(text).toContain('FAILED: 1 escaped, 0 not judged, 0 reference item(s) failed');
    expect(view.images.filter((i) => i.untested).map((i) => i.image)).toEqual(['kotlin', 'java', 'javascript']);
  }, 1_500_000);

  it('answers 400 for a language no bundled suite runs in and 404 for an unknown self-test', async () => {
    const java = await call(postJson('/selftest', { languages: ['java'] }));
    expect(java.status).toBe(400);
    expect(String(java.body.message)).toMatch(/no bundled self-test suite runs in "java"/u);
    expect((await call(apiEvent('GET', '/selftest/selftest-20261202-abcdef'))).status).toBe(404);
    expect((await call(apiEvent('GET', '/selftest/not-a-selftest'))).status).toBe(400);
  });
});
