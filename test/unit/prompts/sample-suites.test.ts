import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KOTLIN_STOP_SEQUENCES } from '../../../layers/core/prompts/kotlin.ts';
import { cleanKotlinCompletion } from '../../../layers/core/languages/kotlin-lexical.ts';
import { extractCode, truncateAtStop } from '../../../layers/core/benchmarks/postprocess.ts';

const root = join(import.meta.dirname, '../../..');
const jsonl = (path: string): Record<string, unknown>[] =>
  readFileSync(join(root, path), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

interface RocodeRow {
  task_id: string;
  name: string;
  statement: string;
  input_spec: string;
  output_spec: string;
  examples: { input: string; output: string }[];
  tests: { input: string; output: string }[];
  time_limit_ms: number;
  memory_limit_mb: number;
  difficulty: string;
  split: string;
  checker: null | { kind: string; language?: string; source?: string; abs?: number; rel?: number };
  solutions: Record<string, string>;
}
interface KotlinRow {
  task_id: string;
  language: string;
  prompt: string;
  entry_point: string;
  test: string;
  canonical_solution: string;
  description: string;
}

const rocode = jsonl('sample/rocode/tasks.jsonl') as unknown as RocodeRow[];
const kotlin = jsonl('sample/kotlin-humaneval/tasks.jsonl') as unknown as KotlinRow[];

describe('sample/rocode', () => {
  it('holds at least 8 tasks with unique ids and names, all three difficulties and more than one split', () => {
    expect(rocode.length).toBeGreaterThanOrEqual(8);
    expect(new Set(rocode.map((t) => t.task_id)).size).toBe(rocode.length);
    expect(new Set(rocode.map((t) => t.name)).size).toBe(rocode.length);
    expect(new Set(rocode.map((t) => t.difficulty))).toEqual(new Set(['easy', 'medium', 'hard']));
    expect(new Set(rocode.map((t) => t.split)).size).toBeGreaterThan(1);
  });

  it.each(rocode.map((t) => [t.task_id, t] as const))('%s has every field of the io-tests format', (_id, t) => {
    for (const field of ['statement', 'input_spec', 'output_spec']) expect(typeof (t as unknown as Record<string, unknown>)[field]).toBe('string');
    expect(t.name).toMatch(/^[a-z0-9_]+$/);
    expect(t.input_spec).toContain(`${t.name}.in`);
    expect(t.output_spec).toContain(`${t.name}.out`);
    expect(t.examples.length).toBeGreaterThanOrEqual(1);
    expect(t.tests.length).toBeGreaterThanOrEqual(5);
    for (const io of [...t.examples, ...t.tests]) {
      expect(typeof io.input).toBe('string');
      expect(typeof io.output).toBe('string');
    }
    expect(t.time_limit_ms).toBeGreaterThanOrEqual(1000);
    expect(t.time_limit_ms).toBeLessThanOrEqual(4000);
    expect(t.memory_limit_mb).toBeGreaterThanOrEqual(64);
    expect(t.memory_limit_mb).toBeLessThanOrEqual(256);
    expect(['easy', 'medium', 'hard']).toContain(t.difficulty);
    expect(['train', 'validation', 'test']).toContain(t.split);
    expect(Object.keys(t.solutions).sort()).toEqual(['c', 'cpp', 'python']);
  });

  it('has a float-tolerance task and a checker-program task', () => {
    expect(rocode.some((t) => t.checker?.kind === 'float' && typeof t.checker.abs === 'number')).toBe(true);
    expect(rocode.some((t) => t.checker?.kind === 'program' && t.checker.language === 'python' && (t.checker.source ?? '').includes('sys.argv[3]'))).toBe(true);
  });

  it('writes its statements in Romanian with diacritics', () => {
    expect(rocode.every((t) => /[ăâîșț]/.test(t.statement + t.input_spec + t.output_spec))).toBe(true);
  });

  it('keeps every reference solution intact through code extraction', () => {
    for (const t of rocode) for (const [lang, code] of Object.entries(t.solutions)) expect(extractCode(code, lang)).toBe(code);
  });
});

describe('sample/kotlin-humaneval', () => {
  it('holds at least 10 MXEval rows with unique ids', () => {
    expect(kotlin.length).toBeGreaterThanOrEqual(10);
    expect(new Set(kotlin.map((t) => t.task_id)).size).toBe(kotlin.length);
  });

  it.each(kotlin.map((t) => [t.task_id, t] as const))('%s has a KDoc prompt, a signature, a main test and a closed body', (_id, t) => {
    expect(t.task_id).toMatch(/^HumanEval_kotlin\/\d+$/);
    expect(t.language).toBe('kotlin');
    expect(t.prompt.startsWith('/**')).toBe(true);
    expect(t.prompt).toContain(`fun ${t.entry_point}(`);
    expect(t.prompt.endsWith('{\n')).toBe(true);
    expect(t.test).toContain('fun main() {');
    expect(t.canonical_solution.endsWith('}\n')).toBe(true);
    expect(typeof t.description).toBe('string');
  });

  it('leaves canonical solutions unchanged by the stop sequences and the cleaning recipe', () => {
    for (const t of kotlin) {
      // `}\n}` may complete one character before `\n}\n`: the final newline is not part of the function.
      expect(truncateAtStop(`${t.canonical_solution}\n${t.test}`, KOTLIN_STOP_SEQUENCES).trimEnd()).toBe(t.canonical_solution.trimEnd());
      expect(cleanKotlinCompletion(t.canonical_solution)).toBe(t.canonical_solution);
    }
  });
});

describe('sample/replay', () => {
  it.each([
    ['rocode-mixed', rocode.map((t) => t.task_id)],
    ['kotlin-mixed', kotlin.map((t) => t.task_id)],
  ])('%s names known tasks and has one expected verdict per line', (name, known) => {
    const lines = jsonl(`sample/replay/${name}.jsonl`);
    const expected = JSON.parse(readFileSync(join(root, `sample/replay/expected-${name}.json`), 'utf8')) as {
      task_ids: string[];
      items: unknown[];
      metrics: Record<string, number>;
    };
    expect(lines.every((l) => typeof l.task_id === 'string' && known.includes(l.task_id) && typeof l.completion === 'string')).toBe(true);
    expect(expected.items).toHaveLength(lines.length);
    expect(new Set(expected.task_ids)).toEqual(new Set(lines.map((l) => l.task_id)));
    expect(Object.keys(expected.metrics)).toContain('pass@1');
  });

  it('keeps every unfenced rocode replay completion intact through code extraction', () => {
    for (const l of jsonl('sample/replay/rocode-mixed.jsonl')) {
      const language = typeof l.language === 'string' ? l.language : 'python';
      expect(extractCode(String(l.completion), language)).toBe(l.completion);
    }
  });
});
