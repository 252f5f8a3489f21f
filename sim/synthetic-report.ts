/**
 * Synthetic RoCode-shaped item documents, for report tests at sizes no fixture reaches
 * (20,000 samples): every third sample fails a test whose expected and actual outputs
 * differ deep inside a large output, so windows and marks are exercised.
 */
import type { ItemDocument } from '#core/run/engine.ts';
import type { Manifest } from '#core/run/manifest.ts';
import { compareOutputs } from '#core/judging/compare.ts';
import { excerpt } from '#core/judging/excerpt.ts';
import type { TestOutcome, Verdict } from '#core/types.ts';

const VERDICT_CYCLE: Verdict[] = ['OK', 'OK', 'WA', 'TLE', 'OK', 'CE'];

/**
 * Code with pseudo-random names and numbers, so the report's compressed sample data is about as
 * large as real programs make it (repeated lines would pack to nothing): one 1 MiB pool, made
 * once, each sample a window of it far from its neighbours' (beyond gzip's 32 KiB reach).
 */
const POOL = ((): string => {
  let state = 1;
  const next = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) % 100_000;
  const lines: string[] = [];
  for (let length = 0; length < 1 << 20;) {
    const line = `v${next()} = v${next()} + ${next()}\n`;
    lines.push(line);
    length += line.length;
  }
  return lines.join('');
})();

function programBody(i: number, chars: number): string {
  if (chars >= POOL.length) return POOL.repeat(Math.ceil(chars / POOL.length)).slice(0, chars);
  const from = (i * 40_009) % (POOL.length - chars);
  return POOL.slice(from, from + chars);
}

export function syntheticRun(count: number, opts: { rawChars?: number; samplesPerTask?: number } = {}): ItemDocument[] {
  const perTask = opts.samplesPerTask ?? 1;
  const docs: ItemDocument[] = [];
  for (let i = 0; i < count; i++) {
    const task = Math.floor(i / perTask);
    const sample = i % perTask;
    const taskId = `rocode-synth/${String(task).padStart(4, '0')}`;
    const verdict = VERDICT_CYCLE[i % VERDICT_CYCLE.length] as Verdict;
    const code = `n = int(open("p${task}.in").read())\n# răspuns ${i}\n${programBody(i, opts.rawChars ?? 200)}`;
    const tests: TestOutcome[] = [];
    if (verdict !== 'CE') {
      for (let t = 0; t < 5; t++) {
        const fail = verdict !== 'OK' && t === 2;
        const test: TestOutcome = { name: `test-${t + 1}`, verdict: fail ? verdict : 'OK', runMs: 10 + t, cpuMs: 8, peakMemoryKb: 9000 };
        if (fail && verdict === 'WA') {
          const expected = `${'1 '.repeat(3000)}${i} ${'2 '.repeat(3000)}`;
          const actual = `${'1 '.repeat(3000)}-${i} ${'2 '.repeat(3000)}`;
          const at = compareOutputs(expected, actual).at;
          test.io = { input: excerpt('6000\n'), expected: excerpt(expected, at?.expected), actual: excerpt(actual, at?.actual) };
          test.detail = `token 3001: expected "${i}", got "-${i}"`;
        }
        tests.push(test);
      }
    }
    const passed = tests.filter((t) => t.verdict === 'OK').length;
    docs.push({
      item_id: `synth/${taskId}/${sample}`,
      record: {
        run_id: 'synth',
        benchmark: 'rocode',
        split: 'test',
        model: 'synthetic',
        provider: 'replay',
        task_id: taskId,
        sample,
        language: i % 2 ? 'cpp' : 'python',
        difficulty: ['easy', 'medium', 'hard'][task % 3] ?? null,
        subtask: null,
        verdict,
        tests_passed: passed,
        tests_total: 5,
        compile_ms: 100,
        run_ms: 50,
        peak_memory_kb: 9000,
        prompt_tokens: 10,
        completion_tokens: 20,
        predicted: null,
        gold: null,
        gold_mean: null,
        answer: code,
        error: verdict === 'CE' ? 'p.cpp:1: error: expected ;' : null,
        created_at: '2026-11-30T00:00:00Z',
      },
      raw: `\`\`\`python\n${code}\`\`\``,
      generation: { usage: { promptTokens: 10, completionTokens: 20 }, latency_ms: 5, attempts: 1 },
      outcome: { verdict, testsPassed: passed, testsTotal: 5, compileMs: 100, tests, ...(verdict === 'CE' ? { error: 'p.cpp:1: error: expected ;' } : {}) },
      ...(sample === 0 ? { task_view: { prompt: `[user]\nRezolvați problema ${task}.`, fields: [{ label: 'file stem', value: `p${task}` }] } } : {}),
    });
  }
  return docs;
}

syntheticRun.manifest = (): Manifest =>
  manifestOf({
    run_id: 'synth',
    created_at: '2026-11-30T00:00:00Z',
    benchmark: {
      id: 'rocode',
      title: 'RoCode (synthetic)',
      spec: 'rocode:synthetic',
      source: 'synthetic',
      sha256: '0'.repeat(64),
      tasks: 1,
      scorer: 'io-tests',
    },
    model: { spec: 'replay:synthetic', kind: 'replay', name: 'synthetic' },
  });

/**
 * A stored run's manifest: who ran what (`run_id`, `created_at`, `benchmark`, `model`) with the
 * settings of a plain one-task run (temperature 0, n 1, seed 1, no limit, no protocol), `more`
 * over them. One builder for the report benches and the tests that store a manifest.
 */
export function manifestOf(fields: Pick<Manifest, 'run_id' | 'created_at' | 'benchmark' | 'model'> & Partial<Manifest>): Manifest {
  const { run_id, created_at, benchmark, model, ...more } = fields;
  return {
    run_id,
    created_at,
    benchmark,
    model,
    params: { temperature: 0, topP: 1, maxTokens: 100, stop: [] },
    n: 1,
    seed: 1,
    split: null,
    limit: null,
    language: null,
    time_scale: 1,
    likert_mode: null,
    max_cost_usd: null,
    code: { version: '0', revision: null, dirty: null },
    packages: {},
    toolchains: [],
    items: 1,
    ...more,
  };
}
