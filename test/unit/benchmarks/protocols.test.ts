/**
 * Protocols: each benchmark follows its source's recipe by default, `--protocol` picks
 * another, single flags override single settings, and the manifest records both.
 */
import { describe, expect, it } from 'vitest';
import { abricot } from '#core/benchmarks/abricot.ts';
import { kotlinHumanEval } from '#core/benchmarks/mxeval.ts';
import { bindProtocol } from '#core/benchmarks/protocol.ts';
import { rocode } from '#core/benchmarks/rocode.ts';
import { parseBenchmarkSpec } from '#core/benchmarks/spec.ts';
import { InputError } from '#core/errors.ts';
import { headlineMetric } from '#core/benchmarks/headline.ts';
import type { Provider } from '#core/models/provider.ts';
import { referenceProvider } from '#core/models/reference.ts';
import { protocolChoiceOfManifest } from '#core/run/manifest.ts';
import { planRun, type LoadedBenchmark } from '#core/run/plan.ts';
import { parseRunSpec, protocolChoiceOf } from '#core/run/spec.ts';
import type { AnyBenchmark } from '#core/benchmarks/benchmark.ts';
import type { IoTestsTask, LikertTask, Task } from '#core/types.ts';

const loc = { file: 'items.jsonl', line: 3 };
const item = (id: string, absMean: number, incMean: number) => ({
  id,
  target_token: 'lampada',
  text: `Ho acceso la lampada ${id}.`,
  abs_mean: absMean,
  inc_mean: incMean,
});
const rocodeRow = {
  task_id: 'ro/1',
  statement: 'Citiți N și afișați N.',
  input_spec: 'Fișierul ecou.in conține N.',
  output_spec: 'Fișierul ecou.out conține N.',
  tests: [{ input: '1\n', output: '1\n' }],
  time_limit: 1,
  solutions: { python: 'print(input())\n' },
};

/** A sampling provider as far as planning sees it (no call is made while planning). */
const sampling: Provider = { id: 'openai:http://127.0.0.1:9#m', kind: 'openai', model: 'm', generate: () => Promise.reject(new Error('not called')) };

function loaded(benchmark: AnyBenchmark, rows: Record<string, unknown>[]): LoadedBenchmark {
  const tasks: Task[] = rows.flatMap((r, i) => benchmark.parseRow(r, { file: 'mem.jsonl', line: i + 1 }));
  return { benchmark, tasks, spec: `${benchmark.id}:mem.jsonl`, source: 'mem.jsonl', sha256: 'x' };
}

const ctx = { runId: 'r1', createdAt: '2026-11-30T00:00:00Z', code: { version: '0', revision: null, dirty: null }, packages: {}, toolchains: [] };

describe('choosing a protocol', () => {
  it("binds each benchmark to its source's protocol by default", () => {
    expect(rocode.protocol.name).toBe('paper');
    expect(abricot.protocol.name).toBe('paper');
    expect(kotlinHumanEval.protocol.name).toBe('mxeval');
    expect(abricot.protocols.map((p) => p.name)).toEqual(['paper', 'paper-figure', 'calamita', 'calamita-fork']);
  });

  it("rejects an unknown protocol naming the benchmark's choices", () => {
    expect(() => bindProtocol(abricot, { protocol: 'harness' })).toThrow(InputError);
    expect(() => bindProtocol(abricot, { protocol: 'harness' })).toThrow(
      'field "protocol": unknown protocol "harness" for abricot (protocols: paper, paper-figure, calamita, calamita-fork)',
    );
    expect(() => parseBenchmarkSpec('sample/rocode', { protocol: 'calamita' })).toThrow('(protocols: paper, infoarena)');
  });

  it('records --row-limits and --prompt-style as overrides and survives a round trip through the manifest', () => {
    const bound = bindProtocol(rocode, { rowLimits: true, promptStyle: 'chat' });
    expect(bound.protocol.overrides).toEqual({ row_limits: true, prompt_style: 'chat' });
    expect(protocolChoiceOfManifest({ protocol: bound.protocol })).toEqual({ protocol: 'paper', rowLimits: true, promptStyle: 'chat' });
    expect(bindProtocol(rocode, protocolChoiceOfManifest({ protocol: bound.protocol })).protocol).toEqual(bound.protocol);
  });
});

describe('runs planned before protocols existed', () => {
  it("resume as they ran: RoCode with its rows' limits and a chat prompt, the others by their default", () => {
    expect(protocolChoiceOfManifest({ benchmark: { id: 'rocode' } })).toEqual({ rowLimits: true, promptStyle: 'chat' });
    expect(protocolChoiceOfManifest({ benchmark: { id: 'abricot' } })).toEqual({});
  });
});

describe('RoCode paper protocol', () => {
  it("runs every test with 4 s whatever the row says, and the row's own limit with --row-limits", () => {
    expect(rocode.parseRow(rocodeRow, loc)[0]?.timeLimitMs).toBe(4000);
    expect(bindProtocol(rocode, { rowLimits: true }).parseRow(rocodeRow, loc)[0]?.timeLimitMs).toBe(1000);
    const { time_limit: _drop, ...noLimit } = rocodeRow;
    expect(bindProtocol(rocode, { rowLimits: true }).parseRow(noLimit, loc)[0]?.timeLimitMs).toBe(4000);
  });

  it('sends the prompt as plain text, or as one user message with --prompt-style chat', () => {
    const [task] = rocode.parseRow(rocodeRow, loc);
    if (!task) throw new Error('no task');
    const plain = rocode.buildPrompt(task, { pool: [task], language: 'python' });
    expect(plain.style).toBe('completion');
    expect(plain.completion).toBe(`${plain.messages[0]?.content}\n`);
    const chat = bindProtocol(rocode, { promptStyle: 'chat' }).buildPrompt(task, { pool: [task], language: 'python' });
    expect(chat.style).toBe('chat');
    expect(chat.messages).toEqual(plain.messages);
  });

  it('plans n = 10 at temperature 0.2 and top-p 0.9 for a sampling model, and records flags that override them', async () => {
    const data = loaded(rocode, [rocodeRow]);
    const paper = await planRun(data, parseRunSpec({ benchmark: 'rocode:mem.jsonl', model: sampling.id }), sampling, ctx);
    expect(paper.manifest.n).toBe(10);
    expect(paper.items).toHaveLength(10);
    expect(paper.manifest.params).toMatchObject({ temperature: 0.2, topP: 0.9 });
    expect(paper.manifest.protocol).toMatchObject({
      name: 'paper',
      overrides: {},
      settings: { n: 10, headline: 'accuracy', timeLimit: { kind: 'fixed', ms: 4000, clock: 'cpu' } },
    });
    const spec = parseRunSpec({ benchmark: 'rocode:mem.jsonl', model: sampling.id, n: 3, temperature: 0.5, rowLimits: true });
    const overridden = await planRun(loaded(bindProtocol(rocode, protocolChoiceOf(spec)), [rocodeRow]), spec, sampling, ctx);
    expect(overridden.manifest.n).toBe(3);
    expect(overridden.manifest.params.temperature).toBe(0.5);
    expect(overridden.manifest.params.topP).toBe(0.9);
    expect(overridden.manifest.protocol?.overrides).toEqual({ row_limits: true, n: 3, temperature: 0.5 });
  });

  it("gives the reference model one sample per reference answer, not the protocol's n", async () => {
    const plan = await planRun(
      loaded(rocode, [rocodeRow]),
      parseRunSpec({ benchmark: 'rocode:mem.jsonl', model: 'reference', language: 'python' }),
      referenceProvider(),
      ctx,
    );
    expect(plan.manifest.n).toBe(1);
    expect(plan.items).toHaveLength(1);
  });
});

describe('ABRICOT protocols', () => {
  const rows = [item('a', 0.3, 0.7), item('b', 0.1, 0.9), item('c', 0.5, 0.5), item('d', 0.62, 0.2)].map((r, i) => ({
    ...r,
    target_token: ['lampada', 'gatto', 'pane', 'treno'][i],
  }));

  it("paper: 3-shot text and the authors' gold; --gold equal-bins the five equal bins; calamita-fork: zero-shot text, accuracy", () => {
    const paperTasks = rows.flatMap((r) => abricot.parseRow(r, loc)) as LikertTask[];
    const bins = bindProtocol(abricot, { gold: 'equal-bins' });
    expect(bins.protocol.overrides).toEqual({ gold: 'equal-bins' });
    const binTasks = rows.flatMap((r) => bins.parseRow(r, loc)) as LikertTask[];
    const fork = bindProtocol(abricot, { protocol: 'calamita-fork' });
    const forkTasks = rows.flatMap((r) => fork.parseRow(r, loc)) as LikertTask[];
    expect(binTasks.map((t) => t.gold)).toEqual([2, 4, 1, 5, 3, 3, 4, 2]);
    expect(paperTasks.map((t) => t.gold)).toEqual([3, 5, 1, 5, 3, 3, 4, 2]);
    expect(forkTasks.map((t) => t.gold)).toEqual([3, 5, 1, 5, 3, 3, 4, 2]);
    const first = paperTasks[0] as LikertTask;
    const paperPrompt = abricot.buildPrompt(first, { pool: paperTasks });
    expect(paperPrompt.style).toBe('completion');
    expect(paperPrompt.completion?.split('Assegna un valore').length).toBe(5);
    const prompt = fork.buildPrompt(forkTasks[0] as LikertTask, { pool: forkTasks });
    expect(prompt.style).toBe('completion');
    expect(prompt.messages).toHaveLength(1);
    const lines = (prompt.completion ?? '').split('\n');
    expect(lines[0]).toBe('Assegna un valore di astrazione da 1 a 5 alla parola lampada nel contesto della frase seguente:');
    expect(lines[1]).toBe('Ho acceso la lampada a.');
    expect(lines[2]).toBe('Descrizione dei valori:');
    expect(lines.slice(3, 8).map((l) => l.slice(0, 4))).toEqual(['1 - ', '2 - ', '3 - ', '4 - ', '5 - ']);
    expect(prompt.completion?.endsWith('\n')).toBe(true);
    expect(fork.protocol.settings.headline).toBe('accuracy');
  });

  it('refuses --gold and --shot-seed where no gold or shots apply, and a bad rule', () => {
    expect(() => bindProtocol(rocode, { gold: 'authors' })).toThrow('--gold does not apply to rocode');
    expect(() => bindProtocol(rocode, { shotSeed: 3 })).toThrow('--shot-seed does not apply to rocode');
    expect(() => bindProtocol(abricot, { gold: 'median' as never })).toThrow('unknown gold rule "median" (rules: authors, equal-bins)');
  });

  it('resumes a run planned before the protocols were renamed with the protocol it followed', () => {
    const oldPaper = { name: 'paper', settings: { ...abricot.protocol.settings, source: undefined, gold: 'equal-bins' as const }, overrides: {} };
    expect(protocolChoiceOfManifest({ protocol: oldPaper, benchmark: { id: 'abricot' } })).toEqual({ protocol: 'paper-figure', gold: 'equal-bins' });
    const oldCalamita = { name: 'calamita', settings: { ...abricot.protocol.settings, source: undefined }, overrides: { shots: 2 } };
    expect(protocolChoiceOfManifest({ protocol: oldCalamita, benchmark: { id: 'abricot' } })).toEqual({ protocol: 'calamita-fork', shots: 2 });
    const now = bindProtocol(abricot, { gold: 'equal-bins', shotSeed: 9 });
    expect(bindProtocol(abricot, protocolChoiceOfManifest({ protocol: now.protocol, benchmark: { id: 'abricot' } })).protocol).toEqual(now.protocol);
  });
});

describe('RoCode prompt language and time clock', () => {
  const loc = { file: 'tasks.jsonl', line: 3 };

  it("asks in English from the row's English columns under --prompt-language en, recorded as an override", () => {
    const en = bindProtocol(rocode, protocolChoiceOf(parseRunSpec({ benchmark: 'rocode', model: 'reference', promptLanguage: 'en' })));
    expect(en.protocol.overrides).toEqual({ prompt_language: 'en' });
    const [task] = en.parseRow(
      { ...rocodeRow, statement_en: 'Read N and print N.', input_spec_en: 'The file ecou.in holds N.', output_spec_en: 'The file ecou.out holds N.' },
      loc,
    );
    const prompt = en.buildPrompt(task as IoTestsTask, { pool: [], language: 'python' });
    expect(prompt.completion).toContain('The following programming problem is given:\n\nRead N and print N.');
    expect(protocolChoiceOfManifest({ protocol: en.protocol })).toMatchObject({ promptLanguage: 'en' });
  });

  it('names the file, line and column when --prompt-language en meets a row without an English statement', () => {
    const en = bindProtocol(rocode, { promptLanguage: 'en' });
    expect(() => en.parseRow(rocodeRow, loc)).toThrow('tasks.jsonl, line 3, field "statement_en": is missing');
  });

  it('measures the limit in wall time under --time-clock wall, CPU time otherwise', () => {
    const [cpu] = rocode.parseRow(rocodeRow, loc);
    expect((cpu as { timeClock?: string }).timeClock).toBeUndefined();
    const wall = bindProtocol(rocode, { timeClock: 'wall' });
    expect(wall.protocol.settings.timeLimit).toEqual({ kind: 'fixed', ms: 4000, clock: 'wall' });
    expect(wall.protocol.overrides).toEqual({ time_clock: 'wall' });
    const [task] = wall.parseRow(rocodeRow, loc);
    expect(task).toMatchObject({ timeLimitMs: 4000, timeClock: 'wall' });
    expect(() => bindProtocol(kotlinHumanEval, { timeClock: 'wall' })).toThrow('--time-clock does not apply to kotlin-humaneval');
  });

  it.each([rocode, kotlinHumanEval, abricot] as AnyBenchmark[])('has one headline: $id reports the headline of its default protocol', (benchmark) => {
    expect(headlineMetric(benchmark.id)).toBe(benchmark.protocol.settings.headline);
  });

  it('names the headlines the sources report first (RoCode accuracy, MXEval pass@1, ABRICOT Pearson)', () => {
    expect([headlineMetric('rocode'), headlineMetric('kotlin-humaneval'), headlineMetric('abricot')]).toEqual(['accuracy', 'pass@1', 'pearson']);
  });
});
