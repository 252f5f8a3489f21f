import { describe, expect, it } from 'vitest';
import { mxeval } from '#core/benchmarks/mxeval.ts';
import { rocode } from '#core/benchmarks/rocode.ts';
import { EXECUTOR_IMAGES } from '#core/languages/index.ts';
import { HOSTILE_CASES } from '#core/selftest/hostile-programs.ts';
import { PROBE_FUNCTION } from '#core/selftest/probe-harness.ts';
import { JAVASCRIPT_REFERENCE_ROWS, JAVA_REFERENCE_ROWS } from '#core/selftest/reference-rows.ts';
import {
  DEPLOYED_PROBE,
  HOSTILE_PROBES,
  ROCODE_PROBE_LANGUAGES,
  SELFTEST_LANGUAGES,
  hostileMxevalJsonl,
  hostileRocodeJsonl,
  selftestSuites,
  type HostileProbe,
} from '#core/selftest/suite.ts';
import { NO_UNIT_FORM, UNIT_FORM_LANGUAGES } from '#core/selftest/unit-probes.ts';
import type { IoTestsTask, UnitTestsTask } from '#core/types.ts';

const lines = (text: string): Record<string, unknown>[] =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const asMxevalTasks = (text: string): UnitTestsTask[] =>
  lines(text).flatMap((row, i) => mxeval.parseRow(row, { file: 'rows.jsonl', line: i + 1 })) as UnitTestsTask[];

/** What the `reference` model submits for a task: its canonical answer, post-processed as every answer is. */
const submitted = (task: UnitTestsTask): string => mxeval.postprocess(mxeval.reference?.(task, task.language) ?? '', task, task.language);

describe('the self-test suites', () => {
  it('give every executor image a reference suite and hostile probes', () => {
    const suites = selftestSuites();
    for (const image of EXECUTOR_IMAGES) {
      const mine = suites.filter((s) => image.languages.includes(s.language));
      expect({ image: image.id, reference: mine.some((s) => s.role === 'reference'), hostile: mine.some((s) => s.role === 'hostile') }).toEqual({
        image: image.id,
        reference: true,
        hostile: true,
      });
      expect(HOSTILE_PROBES.filter((p) => image.languages.includes(p.language)).length, image.id).toBeGreaterThan(0);
    }
    expect(SELFTEST_LANGUAGES).toEqual(EXECUTOR_IMAGES.flatMap((i) => i.languages));
  });

  it('send every hostile program to its deployed runner but the ones with no unit form, each named with its reason', () => {
    const sent = new Set(HOSTILE_PROBES.map((p) => `${p.language} ${p.attack}`));
    const left = HOSTILE_CASES.filter((c) => !sent.has(`${c.language} ${c.attack}`));
    expect(left.every((c) => (UNIT_FORM_LANGUAGES as readonly string[]).includes(c.language) && NO_UNIT_FORM[c.attack] !== undefined)).toBe(true);
    expect(left.map((c) => `${c.language} ${c.attack}`)).toEqual(['javascript reading the expected output']);
    expect(new Set(HOSTILE_PROBES.map((p) => p.taskId)).size).toBe(HOSTILE_PROBES.length);
  });

  it('judge each probe as the local sandbox tests do: the same held verdicts, io probes of RoCode languages as io tests', () => {
    for (const p of HOSTILE_PROBES) {
      const c = HOSTILE_CASES.find((h) => h.language === p.language && h.attack === p.attack);
      expect(p.held).toEqual(c?.verdicts);
      const io = (ROCODE_PROBE_LANGUAGES as readonly string[]).includes(p.language) && c?.scorer === undefined;
      expect(p.scorer, `${p.language} ${p.attack}`).toBe(io ? 'io-tests' : 'unit-tests');
    }
  });
});

describe('the hostile suite as RoCode rows', () => {
  it.each(ROCODE_PROBE_LANGUAGES)('reads back as RoCode tasks whose %s reference solution is each probe', (language) => {
    const tasks = lines(hostileRocodeJsonl(language)).flatMap((row, i) => rocode.parseRow(row, { file: 'hostile.jsonl', line: i + 1 })) as IoTestsTask[];
    const probes = HOSTILE_PROBES.filter((p: HostileProbe) => p.language === language && p.scorer === 'io-tests');
    expect(tasks.map((t) => t.id)).toEqual(probes.map((p) => p.taskId));
    for (const [i, c] of HOSTILE_CASES.filter((h) => h.language === language && h.scorer === undefined).entries()) {
      expect(rocode.reference?.(tasks[i] as IoTestsTask, language)).toBe(c.code(DEPLOYED_PROBE));
    }
  });
});

describe('the hostile suite as MXEval rows', () => {
  const languages = [...new Set(HOSTILE_PROBES.filter((p) => p.scorer === 'unit-tests').map((p) => p.language))];

  it('covers every language: the early exit everywhere, the io probes in Kotlin, Java and JavaScript', () => {
    expect(languages).toEqual(['python', 'c', 'cpp', 'kotlin', 'java', 'javascript']);
  });

  it.each(languages)('reads back as MXEval tasks whose %s answer, post-processed, is exactly the probe', (language) => {
    const tasks = asMxevalTasks(hostileMxevalJsonl(language as 'python'));
    const probes = HOSTILE_PROBES.filter((p) => p.language === language && p.scorer === 'unit-tests');
    expect(tasks.map((t) => t.id)).toEqual(probes.map((p) => p.taskId));
    for (const task of tasks) {
      expect(task.language).toBe(language);
      expect(submitted(task), task.id).toBe(task.canonicalSolution);
    }
  });

  it.each(UNIT_FORM_LANGUAGES)('turns each %s io program into the function its test runs on "1 2", body intact', (language) => {
    const tasks = asMxevalTasks(hostileMxevalJsonl(language));
    const ioCases = HOSTILE_CASES.filter((c) => c.language === language && c.scorer === undefined && NO_UNIT_FORM[c.attack] === undefined);
    expect(ioCases.length).toBeGreaterThan(5);
    for (const c of ioCases) {
      const task = tasks.find((t) => t.id.endsWith(`/${c.attack.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`)) as UnitTestsTask;
      expect(task.entryPoint).toBe(PROBE_FUNCTION);
      expect(task.prompt).toContain(`${PROBE_FUNCTION}()`);
      expect(task.test).toContain('1 2');
      // Every statement of the probe is in the submitted program (Kotlin's comment lines aside: its recipe strips comments).
      const statements = c
        .code(DEPLOYED_PROBE)
        .split('\n')
        .filter((l) => l.trim() !== '' && !/^\s*\/\//u.test(l) && !/^(public class Main|fun main|\s*public static void main)/u.test(l));
      for (const s of statements) expect(`${task.prompt}${submitted(task)}`, `${language} ${c.attack}`).toContain(s);
    }
  });
});

describe('the hand-made reference suites of Java and JavaScript', () => {
  it.each([
    ['java', JAVA_REFERENCE_ROWS],
    ['javascript', JAVASCRIPT_REFERENCE_ROWS],
  ] as const)('read back as %s MXEval tasks whose reference answer survives post-processing unchanged', (language, rows) => {
    const tasks = asMxevalTasks(rows.map((r) => JSON.stringify(r)).join('\n'));
    expect(tasks.length).toBeGreaterThanOrEqual(3);
    for (const task of tasks) {
      expect(task.language).toBe(language);
      expect(submitted(task), task.id).toBe(task.canonicalSolution);
    }
    const suite = selftestSuites().find((s) => s.role === 'reference' && s.language === language);
    expect(suite?.rows?.text.trim().split('\n').length).toBe(rows.length);
  });
});
