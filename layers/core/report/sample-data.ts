/**
 * The data behind the report's sample browser: a compact index row per sample (what the
 * list filters and shows) and a detail object per sample (what opens when a row is
 * clicked), with every long text bounded so a 20,000-sample run still gives a report a
 * browser opens quickly. Pure: the HTML around it is in `sample-browser.ts`.
 */
import type { ItemDocument } from '../run/index.ts';
import type { Excerpt } from '../judging/index.ts';
import type { TestOutcome } from '../types.ts';
import type { TaskView } from '../scorers/index.ts';

/** [task, sample, language, verdict, tests passed, tests total, slices, error head, predicted, gold] */
export type IndexRow = [string, number, string, string, number, number, string[], string, number | null, number | null];

export interface TestDetail {
  name: string;
  verdict: string;
  run_ms: number;
  cpu_ms?: number;
  peak_memory_kb?: number;
  detail?: string;
  io?: { input: Excerpt; expected?: Excerpt; actual?: Excerpt };
}

export interface SampleDetail {
  raw: string;
  /** The extracted program, when it differs from the raw answer and is not a span of it. */
  program?: string;
  /** The extracted program as [start, end) of `raw`, when it is a span of the raw answer (the usual fenced block). */
  program_at?: [number, number];
  error?: string;
  compile_ms?: number;
  run_ms?: number;
  cpu_ms?: number;
  peak_memory_kb?: number;
  usage?: { prompt: number; completion: number };
  latency_ms?: number;
  attempts: number;
  tests?: TestDetail[];
  likert?: { mode?: string; logprobs?: number[]; predicted: number | null; gold?: number; gold_mean?: number };
}

export interface SampleData {
  index: IndexRow[];
  details: SampleDetail[];
  tasks: Record<string, TaskView>;
}

/** Total characters of sample detail a report embeds; each sample gets its share. */
export const DETAIL_BUDGET = 24_000_000;
const PER_SAMPLE_MIN = 300;
const PER_SAMPLE_MAX = 24_000;
const ERROR_HEAD = 160;

/** Cuts a text to `max` characters, saying how much was cut. */
export function clipText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n… [${text.length - max} more characters not shown]` : text;
}

function slicesOf(doc: ItemDocument): string[] {
  const r = doc.record;
  const out: string[] = [];
  if (r.subtask) out.push(`subtask=${r.subtask}`);
  if (r.difficulty) out.push(`difficulty=${r.difficulty}`);
  if (r.split) out.push(`split=${r.split}`);
  return out;
}

/** Narrows an excerpt to `max` characters around its mark (or its start). */
function narrow(e: Excerpt, max: number): Excerpt {
  if (e.text.length <= max) return e;
  const from = e.mark === undefined ? 0 : Math.min(Math.max(0, e.mark - Math.floor(max / 4)), e.text.length - max);
  const out: Excerpt = { text: e.text.slice(from, from + max), start: e.start + from, bytes: e.bytes, complete: false };
  if (e.mark !== undefined && e.mark >= from && e.mark <= from + max) out.mark = e.mark - from;
  return out;
}

function testDetails(tests: readonly TestOutcome[], cap: number): TestDetail[] {
  // Small budgets keep the windows of the first failing test only.
  const ioTests = cap >= 9_000 ? Infinity : 1;
  const ioChars = Math.max(80, Math.floor(cap / 9));
  let withIo = 0;
  return tests.map((t) => {
    const d: TestDetail = { name: t.name, verdict: t.verdict, run_ms: t.runMs };
    if (t.cpuMs !== undefined) d.cpu_ms = t.cpuMs;
    if (t.peakMemoryKb !== undefined) d.peak_memory_kb = t.peakMemoryKb;
    if (t.detail) d.detail = clipText(t.detail, 500);
    if (t.io && withIo < ioTests) {
      withIo++;
      d.io = { input: narrow(t.io.input, ioChars) };
      if (t.io.expected) d.io.expected = narrow(t.io.expected, ioChars);
      if (t.io.actual) d.io.actual = narrow(t.io.actual, ioChars);
    }
    return d;
  });
}

function detailOf(doc: ItemDocument, cap: number): SampleDetail {
  const { outcome, generation, record } = doc;
  const third = Math.floor(cap / 3);
  const d: SampleDetail = { raw: clipText(doc.raw, third), attempts: generation.attempts };
  if (record.answer && record.answer !== doc.raw && outcome.mode !== 'likelihood') {
    const at = record.answer.length <= third ? doc.raw.indexOf(record.answer) : -1;
    if (at >= 0 && at + record.answer.length <= third) d.program_at = [at, at + record.answer.length];
    else d.program = clipText(record.answer, third);
  }
  if (outcome.error) d.error = clipText(outcome.error, Math.min(third, 4000));
  if (outcome.compileMs !== undefined) d.compile_ms = outcome.compileMs;
  if (outcome.runMs !== undefined) d.run_ms = outcome.runMs;
  if (outcome.cpuMs !== undefined) d.cpu_ms = outcome.cpuMs;
  if (outcome.peakMemoryKb !== undefined) d.peak_memory_kb = outcome.peakMemoryKb;
  if (generation.usage) d.usage = { prompt: generation.usage.promptTokens, completion: generation.usage.completionTokens };
  if (generation.latency_ms !== null) d.latency_ms = generation.latency_ms;
  if (outcome.tests?.length) d.tests = testDetails(outcome.tests, cap);
  if (outcome.predicted !== undefined || outcome.choiceLogprobs) {
    d.likert = { predicted: outcome.predicted ?? null };
    if (outcome.mode) d.likert.mode = outcome.mode;
    if (outcome.choiceLogprobs) d.likert.logprobs = outcome.choiceLogprobs;
    if (outcome.gold !== undefined) d.likert.gold = outcome.gold;
    if (outcome.goldMean !== undefined) d.likert.gold_mean = outcome.goldMean;
  }
  return d;
}

/**
 * @example
 * const data = sampleData(docs); // data.index[0] = ['rocode/001', 0, 'cpp', 'WA', 3, 5, ['difficulty=easy'], 'test-4: …', null, null]
 */
export function sampleData(docs: readonly ItemDocument[]): SampleData {
  const tasks: Record<string, TaskView> = {};
  const index: IndexRow[] = [];
  for (const doc of docs) {
    const r = doc.record;
    index.push([
      r.task_id,
      r.sample,
      r.language ?? '',
      r.verdict,
      r.tests_passed,
      r.tests_total,
      slicesOf(doc),
      (r.error ?? '').slice(0, ERROR_HEAD),
      r.predicted,
      r.gold,
    ]);
    if (doc.task_view && !tasks[r.task_id]) {
      tasks[r.task_id] = {
        prompt: clipText(doc.task_view.prompt, 8000),
        fields: doc.task_view.fields.map((f) => ({ label: f.label, value: clipText(f.value, 4000) })),
      };
    }
  }
  // Each sample's texts get an equal share of the budget; structure (test rows, keys) is not
  // text, so when the whole still overflows, shares shrink in proportion and are rebuilt.
  let cap = Math.min(PER_SAMPLE_MAX, Math.max(PER_SAMPLE_MIN, Math.floor(DETAIL_BUDGET / Math.max(1, docs.length))));
  let details = docs.map((d) => detailOf(d, cap));
  for (let round = 0; round < 3 && cap > PER_SAMPLE_MIN; round++) {
    const size = JSON.stringify(details).length;
    if (size <= DETAIL_BUDGET) break;
    cap = Math.max(PER_SAMPLE_MIN, Math.floor((cap * DETAIL_BUDGET * 0.95) / size));
    details = docs.map((d) => detailOf(d, cap));
  }
  return { index, details, tasks };
}
