import { describe, expect, it } from 'vitest';
import { rocode } from '#core/benchmarks/rocode.ts';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';
import { HOSTILE_CASES } from '#core/selftest/hostile-programs.ts';
import { probeResult, selftestReport, type SelftestRun } from '#core/selftest/report.ts';
import { DEPLOYED_PROBE, HOSTILE_PROBES, SELFTEST_HOSTILE_LANGUAGES, hostileRocodeJsonl, type HostileProbe } from '#core/selftest/suite.ts';
import type { IoTestsTask, Verdict } from '#core/types.ts';
import { HarnessError } from '#core/errors.ts';
import { selftestText, waitForSelftest } from '../../../bin/cli/selftest-command.ts';

const ISO = 'lambda-runner+rlimits+seccomp+landlock';

/** Every probe of a language recorded with its first "held" verdict, unless `verdicts` says otherwise. */
function hostileRun(language: string, verdicts: Record<string, Verdict> = {}): SelftestRun {
  const items = HOSTILE_PROBES.filter((p) => p.language === language).map((p) => ({
    taskId: p.taskId,
    verdict: verdicts[p.attack] ?? (p.held[0] as Verdict),
    isolation: ISO,
  }));
  return { runId: `hostile-${language}`, role: 'hostile', language, status: 'completed', items };
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

const healthy = (): SelftestRun[] => [...['python', 'c', 'cpp', 'kotlin'].map((l) => referenceRun(l)), ...SELFTEST_HOSTILE_LANGUAGES.map((l) => hostileRun(l))];

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
    expect(cpp?.probes.length).toBe(HOSTILE_PROBES.filter((p) => p.language !== 'python').length);
  });

  it('lists images no bundled suite reaches as untested, without failing them', () => {
    const report = selftestReport(healthy(), HOSTILE_PROBES, EXECUTOR_IMAGES);
    expect(report.images.filter((i) => i.untested).map((i) => i.image)).toEqual(['java', 'javascript']);
    expect(report.images.find((i) => i.image === 'kotlin')).toMatchObject({ untested: false, probes: [], reference: { passed: 2, total: 2 } });
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
    expect(text).toContain('image java (java)\n  not tested: no bundled suite reaches this image');
    expect(text).toContain('FAILED: 1 escaped, 0 not judged, 0 reference item(s) failed');
  });
});

describe('the bundled hostile suite', () => {
  it.each(SELFTEST_HOSTILE_LANGUAGES)('reads back as RoCode tasks whose %s reference solution is each probe', (language) => {
    const rows = hostileRocodeJsonl(language)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const tasks = rows.flatMap((row, i) => rocode.parseRow(row, { file: 'hostile.jsonl', line: i + 1 })) as IoTestsTask[];
    const probes = HOSTILE_PROBES.filter((p: HostileProbe) => p.language === language);
    expect(tasks.map((t) => t.id)).toEqual(probes.map((p) => p.taskId));
    for (const [i, c] of HOSTILE_CASES.filter((h) => h.language === language && h.scorer === undefined).entries()) {
      expect(rocode.reference?.(tasks[i] as IoTestsTask, language)).toBe(c.code(DEPLOYED_PROBE));
    }
    expect(new Set(probes.map((p) => p.taskId)).size).toBe(probes.length);
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
