/**
 * RoCode (DESIGN §6): Romanian competitive programming, judged on file-based tests. Rows
 * in polyeval's io-tests format (RoCode's published columns map onto it through aliases);
 * the paper's Romanian zero-shot prompt; code taken out of fences or prose.
 */
import { InputError } from '../errors.ts';
import { languageFromAlias } from '../languages/index.ts';
import type { Prompt } from '../models/provider.ts';
import { buildRocodePrompt, ROCODE_LANGUAGES, ROCODE_RECIPE, type RocodeLanguage } from '../prompts/rocode.ts';
import { extractCode } from '../scoring/postprocess.ts';
import type { IoTest, IoTestsTask, OutputChecker } from '../types.ts';
import type { Benchmark, RowLocation } from './benchmark.ts';
import { optionalNumber, optionalString, pick, requiredString } from './fields.ts';

const DEFAULT_MEMORY_MB = 256;

function fail(loc: RowLocation, field: string, message: string): never {
  throw new InputError(message, { ...loc, field });
}

function examplesOf(value: unknown, loc: RowLocation, field: string): { input: string; output: string }[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(loc, field, 'must be an array of {input, output}');
  return value.map((ex, i) => {
    const e = ex as Record<string, unknown>;
    const input = e?.input ?? e?.in;
    const output = e?.output ?? e?.out;
    if (typeof input !== 'string' || typeof output !== 'string') fail(loc, `${field}[${i}]`, 'needs string "input" and "output"');
    return { input, output };
  });
}

function testsOf(value: unknown, loc: RowLocation): IoTest[] {
  if (!Array.isArray(value) || value.length === 0) fail(loc, 'tests', 'must be a non-empty array of tests');
  return value.map((t, i) => {
    const r = t as Record<string, unknown>;
    const field = `tests[${i}]`;
    if (typeof r !== 'object' || r === null) fail(loc, field, 'must be an object');
    const input = r.input ?? r.in;
    const output = r.output ?? r.out;
    const test: IoTest = { name: typeof r.name === 'string' ? r.name : String(i + 1) };
    if (typeof input === 'string' && typeof output === 'string') return { ...test, input, output };
    if (typeof r.input_path === 'string' && typeof r.output_path === 'string') return { ...test, inputPath: r.input_path, outputPath: r.output_path };
    return fail(loc, field, 'needs "input" and "output" strings, or "input_path" and "output_path"');
  });
}

function checkerOf(value: unknown, loc: RowLocation): OutputChecker {
  if (value === undefined || value === null) return { kind: 'tokens' };
  const c = value as Record<string, unknown>;
  if (c.kind === 'tokens') return { kind: 'tokens' };
  if (c.kind === 'float') {
    const abs = c.abs ?? undefined;
    const rel = c.rel ?? undefined;
    if ((abs !== undefined && typeof abs !== 'number') || (rel !== undefined && typeof rel !== 'number')) fail(loc, 'checker', 'float tolerances "abs" and "rel" must be numbers');
    if (abs === undefined && rel === undefined) fail(loc, 'checker', 'a float checker needs "abs" or "rel"');
    return { kind: 'float', ...(abs !== undefined ? { abs: abs as number } : {}), ...(rel !== undefined ? { rel: rel as number } : {}) };
  }
  if (c.kind === 'program') {
    if (typeof c.language !== 'string' || typeof c.source !== 'string') fail(loc, 'checker', 'a program checker needs "language" and "source"');
    return { kind: 'program', language: c.language, source: c.source };
  }
  return fail(loc, 'checker', `unknown checker kind ${JSON.stringify(c.kind)} (tokens, float, program)`);
}

function solutionsOf(value: unknown, loc: RowLocation): Partial<Record<string, string>> {
  if (value === undefined || value === null) return {};
  if (Array.isArray(value)) {
    const out: Record<string, string> = {};
    for (const s of value as Record<string, unknown>[]) {
      if (typeof s?.language === 'string' && typeof s.code === 'string' && !out[normaliseLanguage(s.language)]) out[normaliseLanguage(s.language)] = s.code;
    }
    return out;
  }
  if (typeof value !== 'object') fail(loc, 'solutions', 'must be an object keyed by language');
  const out: Record<string, string> = {};
  for (const [lang, code] of Object.entries(value as Record<string, unknown>)) {
    if (typeof code !== 'string') fail(loc, `solutions.${lang}`, 'must be a string');
    out[normaliseLanguage(lang)] = code;
  }
  return out;
}

/** c, cpp, python from the spellings datasets use (C++, c++17, py, Python3…). */
export function normaliseLanguage(name: string): string {
  const n = name.toLowerCase().replace(/\s+/g, '');
  if (/^(c\+\+|cpp|cxx|g\+\+)/.test(n)) return 'cpp';
  if (/^py/.test(n)) return 'python';
  if (n === 'c' || /^(gcc|c\d\d|gnuc)/.test(n)) return 'c';
  if (/^(kotlin|kt)$/.test(n)) return 'kotlin';
  return languageFromAlias(n) ?? n;
}

function parseRow(row: Record<string, unknown>, loc: RowLocation): IoTestsTask[] {
  const id = requiredString(row, ['task_id', 'id', 'problem_id'], loc);
  const name = optionalString(row, ['name', 'title', 'problem_name'], loc) ?? id.split('/').pop() ?? id;
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) fail(loc, 'name', `must be a file stem (letters, digits, _ . -), got ${JSON.stringify(name)}`);
  const timeSeconds = optionalNumber(row, ['time_limit', 'time_limit_s'], loc, [0, 3600]);
  const timeLimitMs = optionalNumber(row, ['time_limit_ms'], loc, [1, 3_600_000]) ?? (timeSeconds !== undefined ? timeSeconds * 1000 : ROCODE_RECIPE.defaultTimeLimitMs);
  const memoryKb = optionalNumber(row, ['memory_limit_kb'], loc, [1, 64 * 1024 * 1024]);
  const memoryLimitMb = optionalNumber(row, ['memory_limit_mb', 'memory_limit'], loc, [1, 65536]) ?? (memoryKb !== undefined ? Math.ceil(memoryKb / 1024) : DEFAULT_MEMORY_MB);
  const difficulty = optionalString(row, ['difficulty', 'level'], loc);
  const task: IoTestsTask = {
    kind: 'io-tests',
    id,
    benchmark: 'rocode',
    split: optionalString(row, ['split'], loc) ?? 'test',
    slices: {},
    name,
    statement: requiredString(row, ['statement', 'description', 'problem_description', 'text'], loc),
    inputSpec: optionalString(row, ['input_spec', 'input_description', 'input_specification'], loc) ?? '',
    outputSpec: optionalString(row, ['output_spec', 'output_description', 'output_specification'], loc) ?? '',
    examples: examplesOf(pick(row, ['examples'])?.value, loc, 'examples'),
    tests: testsOf(pick(row, ['tests', 'test_cases'])?.value, loc),
    timeLimitMs,
    memoryLimitMb,
    checker: checkerOf(row.checker, loc),
    solutions: solutionsOf(row.solutions, loc),
  };
  if (difficulty !== undefined) task.difficulty = difficulty;
  return [task];
}

function asRocodeLanguage(language: string | undefined): RocodeLanguage {
  const l = normaliseLanguage(language ?? ROCODE_RECIPE.language);
  if (!(ROCODE_LANGUAGES as readonly string[]).includes(l)) throw new InputError(`RoCode asks for c, cpp or python, not "${language}"`, { field: 'language' });
  return l as RocodeLanguage;
}

function buildPrompt(task: IoTestsTask, ctx: { language?: string }): Prompt {
  const text = buildRocodePrompt(task, asRocodeLanguage(ctx.language));
  return { style: 'chat', messages: [{ role: 'user', content: text }], completion: `${text}\n` };
}

export const rocode: Benchmark<IoTestsTask> = {
  id: 'rocode',
  scorer: 'io-tests',
  title: 'RoCode — Romanian competitive programming (C, C++, Python)',
  parseRow,
  defaults: { params: { temperature: ROCODE_RECIPE.temperature, topP: ROCODE_RECIPE.topP, maxTokens: 2048, stop: [] }, language: 'python', languages: [...ROCODE_LANGUAGES] },
  buildPrompt,
  reference: (task, language) => task.solutions[asRocodeLanguage(language)],
  postprocess: (raw, _task, language) => extractCode(raw, asRocodeLanguage(language)),
  languageOf: (_task, requested) => asRocodeLanguage(requested),
};
