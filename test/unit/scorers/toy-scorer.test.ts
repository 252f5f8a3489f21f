// A fourth scorer kind written in one file (test/support/toy-scorer.ts) and registered with one
// line (TOY_SCORERS) runs through the stages every kind shares: the stored task schema, the
// plan, generate → score → record, the task view, the metrics of its plan and its report
// charts — and stays out of the shipped registry.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeMetrics } from '#core/scorers/metrics-table.ts';
import { referenceProvider } from '#core/models/reference.ts';
import { generateItem, recordItem, scoreItem, type RunContext } from '#core/run/engine.ts';
import { planRun } from '#core/run/plan.ts';
import { parseRunSpec } from '#core/run/spec.ts';
import { taskSchemaOf } from '#core/run/task-schema.ts';
import { SCORER_REGISTRY } from '#core/scorers/index.ts';
import type { RunRecord, ScorerKind, Task } from '#core/types.ts';
import { FileRunLedger, FsBlobStore } from '#local/index.ts';
import { TOY_KIND, TOY_SCORERS, toyWords } from '../../support/toy-scorer.ts';

const ROWS = [
  { id: 'w1', question: 'Il contrario di "caldo"?', word: 'freddo' },
  { id: 'w2', question: 'Il colore del cielo sereno?', word: 'azzurro' },
];

async function toyRun(answer: (taskId: string) => string | undefined) {
  const dir = mkdtempSync(join(tmpdir(), 'toy-scorer-'));
  const benchmark = toyWords;
  const tasks = ROWS.flatMap((row, i) => benchmark.parseRow(row, { file: 'toy.jsonl', line: i + 1 }));
  const provider = referenceProvider();
  const data = { benchmark, tasks, spec: 'toy-words:toy.jsonl', source: 'toy.jsonl', sha256: 'x'.repeat(64) };
  const spec = parseRunSpec({ benchmark: 'toy-words:toy.jsonl', model: 'reference' });
  const context = { runId: 'toy-1', createdAt: '2026-01-01T00:00:00.000Z', code: { version: 't', revision: null, dirty: null }, packages: {}, toolchains: [] };
  const plan = await planRun(data, spec, provider, { ...context, scorers: TOY_SCORERS });
  const ledger = new FileRunLedger(join(dir, 'ledger'));
  await ledger.createRun({
    runId: 'toy-1',
    benchmark: 'toy-words',
    model: 'reference',
    status: 'planned',
    items: plan.items.length,
    createdAt: context.createdAt,
  });
  const ctx: RunContext = {
    store: new FsBlobStore(join(dir, 'store')),
    ledger,
    provider: { ...provider, generate: async (req) => ({ ...(await provider.generate(req)), text: answer(req.taskId) ?? req.reference ?? '' }) },
    clock: () => new Date('2026-01-01T00:00:01.000Z'),
    manifest: plan.manifest,
    benchmark,
    tasks: new Map(plan.tasks.map((t) => [t.id, t])),
    pool: tasks,
    scorers: TOY_SCORERS,
    stop: {},
  };
  const records: RunRecord[] = [];
  for (const item of plan.items) {
    const generated = await generateItem(ctx, item);
    records.push(await recordItem(ctx, generated, await scoreItem(ctx, generated)));
  }
  return { ctx, records, plan };
}

describe('a scorer kind registered in one place', () => {
  it('stays out of the shipped registry', () => {
    expect(SCORER_REGISTRY.scorers.map((s) => s.id)).not.toContain(TOY_KIND);
    expect(() => SCORER_REGISTRY.byKind(TOY_KIND)).toThrow(`unknown scorer kind "${TOY_KIND}"`);
  });

  it('stores its tasks under the task schema its registry derives', () => {
    const task = { kind: TOY_KIND, id: 'w1', benchmark: 'toy-words', split: 'test', slices: {}, question: 'q?', expected: 'freddo' };
    expect(taskSchemaOf(TOY_SCORERS.scorers).parse(task)).toEqual(task);
    expect(taskSchemaOf(TOY_SCORERS.scorers).safeParse({ ...task, expected: '' }).success).toBe(false);
    expect(taskSchemaOf(SCORER_REGISTRY.scorers).safeParse(task).success).toBe(false);
  });

  it('is generated, scored and recorded by the shared stages, with its own verdicts and task view', async () => {
    const { records, plan, ctx } = await toyRun((id) => (id === 'w2' ? 'Blu.' : ' Freddo!'));
    expect(plan.manifest.benchmark.scorer).toBe(TOY_KIND);
    expect(plan.manifest.likert_mode).toBeNull();
    expect(records.map((r) => [r.task_id, r.verdict, r.answer, r.error])).toEqual([
      ['w1', 'OK', 'Freddo!', null],
      ['w2', 'WA', 'Blu.', 'expected "azzurro"'],
    ]);
    const doc = JSON.parse((await ctx.store.getText('runs/toy-1/items/w2/0.json')) ?? '{}') as { task_view?: { fields: { label: string }[] } };
    expect(doc.task_view?.fields.map((f) => f.label)).toEqual(['question', 'expected word', 'split']);
  });

  it('computes the metrics of its own plan', async () => {
    const { records } = await toyRun((id) => (id === 'w2' ? 'Blu.' : 'freddo'));
    const rows = computeMetrics(records, {
      runId: 'toy-1',
      benchmark: 'toy-words',
      model: 'reference',
      scorer: TOY_KIND as ScorerKind,
      n: 1,
      seed: 1,
      scorers: TOY_SCORERS,
    });
    expect(rows.map((r) => [r.metric, r.slice, r.value])).toEqual([['accuracy', 'all', 0.5]]);
  });

  it('shows in inspect and the report through its own views', () => {
    const scorer = TOY_SCORERS.byKind(TOY_KIND);
    const task = { kind: TOY_KIND, id: 'w1', benchmark: 'toy-words', split: 'test', slices: {}, question: 'q?', expected: 'freddo' } as unknown as Task;
    expect(scorer.inspect(task, toyWords)).toEqual({ kind: TOY_KIND, expected: 'freddo' });
    expect(scorer.needsExecutor).toBe(false);
    expect(scorer.charts([])).toBe('<p>0 of 0 words named</p>');
  });
});
