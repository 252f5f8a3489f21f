import { describe, expect, it } from 'vitest';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';
import { probeResult, selftestReport, type SelftestRun } from '#core/selftest/report.ts';
import { HOSTILE_PROBES } from '#core/selftest/suite.ts';
import type { Verdict } from '#core/types.ts';
import { HarnessError } from '#core/errors.ts';
import { selftestText, waitForSelftest } from '../../../bin/cli/selftest-command.ts';

const ISO = 'lambda-runner+rlimits+seccomp+landlock';

/**
 * The probes of a language one judge takes (RoCode rows: io-tests; MXEval rows: unit-tests),
 * each recorded with its first "held" verdict unless `verdicts` says otherwise.
 */
function hostileRun(language: string, verdicts: Record<string, Verdict> = {}, scorer: 'io-tests' | 'unit-tests' = 'io-tests'): SelftestRun {
  const items = HOSTILE_PROBES.filter((p) => p.language === language && p.scorer === scorer).map((p) => ({
    taskId: p.taskId,
    verdict: verdicts[p.attack] ?? (p.held[0] as Verdict),
    isolation: ISO,
  }));
  return { runId: `hostile-${scorer === 'io-tests' ? '' : 'mxeval-'}${language}`, role: 'hostile', language, status: 'completed', items };
}

function referenceRun(language: string, verdicts: Verdict[] = ['OK', 'OK']): SelftestRun {
  return {
    runId: `reference-${language}`,
    role: 'reference',
    language,
    status: 'completed',
    items: verdicts.map((verdict, i) => ({ taskId: `t${i}`, verdict, isolation: ISO })),
  };
}

const ALL = ['python', 'c', 'cpp', 'kotlin', 'java', 'javascript'];
const healthy = (): SelftestRun[] => [
  ...ALL.map((l) => referenceRun(l)),
  ...['python', 'c', 'cpp'].map((l) => hostileRun(l)),
  ...ALL.map((l) => hostileRun(l, {}, 'unit-tests')),
];

describe('probeResult', () => {
  it.each([
    [['TLE', 'RE'], 'RE', 'held'],
    [['OK'], 'OK', 'held'],
    [['OK'], 'WA', 'escaped'],
    [['WA'], 'OK', 'escaped'],
    [['MLE'], 'TLE', 'escaped'],
    [['OK'], 'SE', 'error'],
    [['OK'], null, 'error'],
  ] as const)('judges held %j with verdict %s as %s', (held, verdict, expected) => {
    expect(probeResult(held, verdict)).toBe(expected);
  });
});

describe('the self-test report', () => {
  it('passes when every reference item passes and every probe holds, naming each image isolation', () => {
    const report = selftestReport(healthy(), HOSTILE_PROBES, EXECUTOR_IMAGES);
    expect(report.ok).toBe(true);
    expect(report.images.map((i) => i.image)).toEqual(EXECUTOR_IMAGES.map((i) => i.id));
    const cpp = report.images.find((i) => i.image === 'cpp');
    expect(cpp).toMatchObject({ languages: ['c', 'cpp'], isolation: [ISO], reference: { passed: 4, total: 4 }, ok: true });
    expect(cpp?.probes.every((p) => p.result === 'held')).toBe(true);
    expect(cpp?.probes.length).toBe(HOSTILE_PROBES.filter((p) => p.language === 'c' || p.language === 'cpp').length);
    for (const image of report.images)
      expect({ image: image.image, untested: image.untested, probes: image.probes.length > 0 }).toEqual({ image: image.image, untested: false, probes: true });
  });

  it("finds a language's probes in both its runs (RoCode rows and MXEval rows) and names the judge each went through", () => {
    const python = selftestReport(healthy(), HOSTILE_PROBES, EXECUTOR_IMAGES).images.find((i) => i.image === 'python');
    expect(python?.probes.find((p) => p.attack === 'exiting early to fake a pass')).toMatchObject({ scorer: 'unit-tests', verdict: 'WA', result: 'held' });
    expect(python?.probes.find((p) => p.attack === 'fork bomb')).toMatchObject({ scorer: 'io-tests', result: 'held' });
    const kotlin = selftestReport(healthy(), HOSTILE_PROBES, EXECUTOR_IMAGES).images.find((i) => i.image === 'kotlin');
    expect(new Set(kotlin?.probes.map((p) => p.scorer))).toEqual(new Set(['unit-tests']));
  });

  it('lists an image no run reached (a self-test of some languages) as untested, without failing it', () => {
    const report = selftestReport(
      healthy().filter((r) => r.language === 'javascript'),
      HOSTILE_PROBES,
      EXECUTOR_IMAGES,
    );
    expect(report.ok).toBe(true);
    expect(report.images.filter((i) => i.untested).map((i) => i.image)).toEqual(['python', 'cpp', 'kotlin', 'java']);
    expect(report.images.find((i) => i.image === 'javascript')).toMatchObject({ untested: false, reference: { passed: 2, total: 2 } });
  });

  it('calls a Java probe whose test failed (it printed what it reached) an escape', () => {
    const runs = healthy().map((r) =>
      r.runId === 'hostile-mxeval-java' ? hostileRun('java', { 'a TCP connection to a listening loopback port': 'RE' }, 'unit-tests') : r,
    );
    const report = selftestReport(runs, HOSTILE_PROBES, EXECUTOR_IMAGES);
    expect(report).toMatchObject({ ok: false, escaped: 1, errors: 0 });
    expect(report.images.find((i) => i.image === 'java')?.probes.find((p) => p.result === 'escaped')).toMatchObject({
      attack: 'a TCP connection to a listening loopback port',
      scorer: 'unit-tests',
      verdict: 'RE',
    });
  });

  it('fails on a probe that printed what it reached, and counts it as escaped', () => {
    const runs = healthy().map((r) =>
      r.runId === 'hostile-python' ? hostileRun('python', { 'reading the parent environment and /proc/<pid>/environ': 'WA' }) : r,
    );
    const report = selftestReport(runs, HOSTILE_PROBES, EXECUTOR_IMAGES);
    expect(report).toMatchObject({ ok: false, escaped: 1, errors: 0, referenceFailed: 0 });
    const python = report.images.find((i) => i.image === 'python');
    expect(python?.ok).toBe(false);
    expect(python?.probes.find((p) => p.result === 'escaped')).toMatchObject({
      attack: 'reading the parent environment and /proc/<pid>/environ',
      verdict: 'WA',
    });
    expect(report.images.find((i) => i.image === 'cpp')?.ok).toBe(true);
  });

  it('counts an SE or a missing record as not judged, and a failed reference item, an incomplete run as failures', () => {
    const runs = healthy().map((r) => {
      if (r.runId === 'hostile-c') return { ...hostileRun('c', { 'fork bomb': 'SE' }), items: hostileRun('c', { 'fork bomb': 'SE' }).items.slice(0, -1) };
      if (r.runId === 'reference-kotlin') return referenceRun('kotlin', ['OK', 'WA']);
      if (r.runId === 'reference-python') return { ...referenceRun('python'), status: 'failed' };
      return r;
    });
    const report = selftestReport(runs, HOSTILE_PROBES, EXECUTOR_IMAGES);
    expect(report).toMatchObject({ ok: false, escaped: 0, errors: 2, referenceFailed: 1 });
    expect(
      report.images
        .find((i) => i.image === 'cpp')
        ?.probes.filter((p) => p.result === 'error')
        .map((p) => p.error ?? p.verdict),
    ).toEqual(['SE', 'not recorded']);
    expect(report.images.find((i) => i.image === 'kotlin')?.reference?.failed).toEqual(['kotlin t1: WA']);
    expect(report.images.find((i) => i.image === 'python')?.incomplete).toEqual(['reference-python: failed']);
  });

  it('prints one block per image with each probe held or escaped, and the totals', () => {
    const runs = healthy().map((r) => (r.runId === 'hostile-cpp' ? hostileRun('cpp', { 'a TCP connection to a listening loopback port': 'WA' }) : r));
    const text = selftestText('selftest-1', selftestReport(runs, HOSTILE_PROBES, EXECUTOR_IMAGES));
    expect(text).toContain(`image cpp (c, cpp) · isolation: ${ISO}`);
    expect(text).toMatch(/a TCP connection to a listening loopback port\s+cpp\s+WA\s+ESCAPED/u);
    expect(text).toMatch(/fork bomb\s+python\s+TLE\s+HELD/u);
    expect(text).toMatch(
      /image kotlin \(kotlin\)[^\n]*\n {2}reference suite: 2\/2 passed\n {2}hostile suite: \d+ probe\(s\), \d+ as MXEval answers \(unit-tests judge\)\n/u,
    );
    expect(text).toMatch(
      /image python \(python\)[^\n]*\n[^\n]*\n {2}hostile suite: 14 probe\(s\), 13 as RoCode answers \(io-tests judge\), 1 as MXEval answers \(unit-tests judge\)\n/u,
    );
    expect(text).toMatch(/thread bomb\s+kotlin\s+TLE\s+HELD/u);
    expect(text).toContain('FAILED: 1 escaped, 0 not judged, 0 reference item(s) failed');
    const partial = selftestText(
      'selftest-2',
      selftestReport(
        healthy().filter((r) => r.language === 'python'),
        HOSTILE_PROBES,
        EXECUTOR_IMAGES,
      ),
    );
    expect(partial).toContain('image java (java)\n  not tested: this self-test sent nothing to this image (see --language)');
  });
});

describe('waiting for a self-test', () => {
  const done = { selftest_id: 's', status: 'done' as const, ...selftestReport(healthy(), HOSTILE_PROBES, EXECUTOR_IMAGES) };
  const running = {
    selftest_id: 's',
    status: 'running' as const,
    runs: [{ run_id: 'r', role: 'hostile' as const, language: 'c', image: 'cpp', status: 'running' }],
  };

  it('polls until every run has ended, asking again after a poll with no answer, and reports progress meanwhile', async () => {
    const answers = [running, new HarnessError('no answer from http://api within 30000 ms'), running, done];
    const progress: string[] = [];
    const next = () => {
      const answer = answers.shift() ?? done;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    };
    const view = await waitForSelftest({ selftest: next }, 's', {
      pollMs: 10,
      timeoutMs: 1000,
      progress: (l) => progress.push(l),
      sleep: () => Promise.resolve(),
      now: () => 0,
    });
    expect(view.ok).toBe(true);
    expect(progress).toEqual(['s: 0/1 runs ended', 's: no answer from http://api within 30000 ms; asking again', 's: 0/1 runs ended']);
  });

  it('gives up after the timeout naming the command that looks again', async () => {
    let t = 0;
    const wait = waitForSelftest({ selftest: () => Promise.resolve(running) }, 's', {
      pollMs: 10,
      timeoutMs: 100,
      progress: () => undefined,
      sleep: () => Promise.resolve(),
      now: () => (t += 60),
    });
    await expect(wait).rejects.toThrow(/polyeval remote selftest --id s/u);
  });
});
