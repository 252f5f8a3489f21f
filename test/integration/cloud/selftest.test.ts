// The deployed self-test end to end on moto_server: POST /selftest through the real api
// handler, the runs through the real plan, generate, execute and aggregate handlers (the
// local sandbox standing in for every image's deployed judge and runner), GET /selftest/{id}
// read into the report `polyeval remote selftest` prints — with a runner that leaks its
// credentials into JavaScript programs' environment, which the report must call an escape,
// and only that; and with a clean one, which passes with every image's probes listed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';
import type { ExecutionJob, Executor } from '#core/ports.ts';
import { HOSTILE_PROBES, selftestSuites } from '#core/selftest/suite.ts';
import { imageOf, type SelftestStarted, type SelftestView } from '#app/cloud/selftest.ts';
import { selftestText } from '../../../bin/cli/selftest-command.ts';
import { apiEvent, postJson } from './api-events.ts';
import { apiClient, drive, startCloud, type Cloud } from './cloud-harness.ts';

let cloud: Cloud;
/** Whether the executors leak (set by the test that plays that runner). */
let leak = false;

/**
 * A runner that hands JavaScript programs its credentials, as one that forgot to clear the
 * environment would (Lambda sets AWS_SECRET_ACCESS_KEY in every function's environment): the
 * answer's first statement puts the variable in `process.env`, Node's view of the environment.
 */
function leaky(inner: Executor): Executor {
  const leakInto = (job: ExecutionJob): ExecutionJob =>
    leak && job.language === 'javascript' ? { ...job, code: `process.env.AWS_SECRET_ACCESS_KEY = 'leaked';\n${job.code}` } : job;
  return {
    execute: (job) => inner.execute(leakInto(job)),
    toolchains: (options, languages) => inner.toolchains(options, languages),
    prepare: (languages) => inner.prepare?.(languages),
    close: () => inner.close(),
  };
}

beforeAll(async () => {
  // Every language's executor lane but python's (the harness always has that one).
  cloud = await startCloud({ executeLanguages: ['c', 'cpp', 'kotlin', 'java', 'javascript'], wrapExecutor: leaky });
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
  it('reports credentials a runner leaked into a JavaScript program as the one escape, and fails', async () => {
    leak = true;
    const { started, view } = await selftest({ languages: ['javascript'] }).finally(() => (leak = false));
    expect(started.runs.map((r) => `${r.role}:${r.language}:${r.image}:${r.benchmark}`)).toEqual([
      'reference:javascript:javascript:mxeval',
      'hostile:javascript:javascript:mxeval',
    ]);
    if (view.status !== 'done') throw new Error(`the self-test did not finish: ${JSON.stringify(view)}`);
    const text = selftestText(view.selftest_id, view);
    expect(view, text).toMatchObject({ ok: false, escaped: 1, errors: 0, referenceFailed: 0 });
    const js = view.images.find((i) => i.image === 'javascript');
    expect(js?.reference, text).toMatchObject({ failed: [], passed: 3, total: 3 });
    expect(js?.probes.filter((p) => p.result === 'escaped').map((p) => `${p.attack}: ${p.verdict}`)).toEqual([
      'reading the parent environment and /proc/<pid>/environ: RE',
    ]);
    // The probe's test failed naming what the program printed: the leaked variable.
    expect(js?.probes.find((p) => p.result === 'escaped')?.error).toMatch(/the probe printed: leak .*AWS_SECRET_ACCESS_KEY/u);
    expect(text).toMatch(/reading the parent environment and \/proc\/<pid>\/environ\s+javascript\s+RE\s+ESCAPED/u);
    expect(text).toMatch(/a TCP connection to a listening loopback port\s+javascript\s+OK\s+HELD/u);
    expect(text).toContain('FAILED: 1 escaped, 0 not judged, 0 reference item(s) failed');
    expect(view.images.filter((i) => i.untested).map((i) => i.image)).toEqual(['python', 'cpp', 'kotlin', 'java']);
  }, 600_000);

  it("passes on a clean runner, listing every image's reference suite and every probe held", async () => {
    const { started, view } = await selftest();
    expect(started.runs.map((r) => `${r.role}:${r.language}:${r.benchmark}`)).toEqual(selftestSuites().map((s) => `${s.role}:${s.language}:${s.benchmark}`));
    expect(started.runs.every((r) => r.image === imageOf(r.language))).toBe(true);
    if (view.status !== 'done') throw new Error(`the self-test did not finish: ${JSON.stringify(view)}`);
    const text = selftestText(view.selftest_id, view);
    expect(view, text).toMatchObject({ ok: true, escaped: 0, errors: 0, referenceFailed: 0 });
    expect(view.images.map((i) => i.image)).toEqual(EXECUTOR_IMAGES.map((i) => i.id));
    for (const image of view.images) {
      expect({ image: image.image, untested: image.untested, ok: image.ok }, text).toEqual({ image: image.image, untested: false, ok: true });
      expect(image.isolation.length, `${image.image}: ${text}`).toBeGreaterThan(0);
      expect(image.reference?.total, image.image).toBeGreaterThan(0);
      expect(image.probes.map((p) => `${p.language} ${p.attack} ${p.result}`)).toEqual(
        HOSTILE_PROBES.filter((p) => image.languages.includes(p.language)).map((p) => `${p.language} ${p.attack} held`),
      );
    }
    expect(text).toMatch(/thread bomb\s+kotlin\s+\w+\s+HELD/u);
    expect(text).toMatch(/reading the parent environment and \/proc\/<pid>\/environ\s+java\s+OK\s+HELD/u);
    expect(text).toMatch(/exiting early to fake a pass\s+cpp\s+WA\s+HELD/u);
    expect(text).toContain('PASSED: 0 escaped, 0 not judged, 0 reference item(s) failed');
  }, 3_000_000);

  it('answers 400 for a language no self-test suite runs in and 404 for an unknown self-test', async () => {
    const cobol = await call(postJson('/selftest', { languages: ['cobol'] }));
    expect(cobol.status).toBe(400);
    expect(String(cobol.body.message)).toMatch(/no self-test suite runs in "cobol"/u);
    expect((await call(apiEvent('GET', '/selftest/selftest-20261202-abcdef'))).status).toBe(404);
    expect((await call(apiEvent('GET', '/selftest/not-a-selftest'))).status).toBe(400);
  });
});
