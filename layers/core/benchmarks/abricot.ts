/**
 * ABRICOT (DESIGN §6): Italian sentences with a target word, judged for abstractness and
 * inclusiveness on a 1–5 scale. One row becomes two tasks, `abstractness/<id>` and
 * `inclusiveness/<id>`. Two protocols: the paper's (3-shot, gold min(5, 1 + ⌊5·mean⌋),
 * Pearson) and the CALAMITA harness's (zero-shot, gold min(4, round(5·mean)) + 1, accuracy).
 */
import type { Prompt } from '../models/provider.ts';
import type { LikertSubtask, LikertTask } from '../types.ts';
import { abricotCalamitaPrompt, abricotFewShotText, abricotQuestion } from '../prompts/abricot.ts';
import type { Benchmark, FieldMapping, PromptContext, RowLocation } from './benchmark.ts';
import { discretise, goldDigit } from './likert-gold.ts';
import { defaultProtocol, type GoldRule, type ProtocolDefinition, type RunProtocol } from './protocol.ts';
import { optionalNumber, optionalString, requiredNumber, requiredString } from './fields.ts';

export const LIKERT_CHOICES = ['1', '2', '3', '4', '5'] as const;
export const FEW_SHOTS = 3;

const COLUMNS: Record<LikertSubtask, { mean: string[]; std: string[] }> = {
  abstractness: { mean: ['abs_mean', 'abstractness_mean', 'abstractness mean'], std: ['abs_std', 'abstractness_std', 'abstractness std'] },
  inclusiveness: { mean: ['inc_mean', 'inclusiveness_mean', 'inclusiveness mean'], std: ['inc_std', 'inclusiveness_std', 'inclusiveness std'] },
};

export { discretise };

const C = {
  id: ['id', 'ID', 'Id'],
  text: ['text'],
  target: ['target_token', 'target token', 'token'],
  lemma: ['target_lemma', 'target lemma', 'lemma'],
  domain: ['domain'],
  begin: ['begin'],
  end: ['end'],
  split: ['split'],
} as const;

const ABRICOT_FIELDS: FieldMapping[] = [
  { field: 'item id', columns: C.id, required: true, note: 'tasks abstractness/<id> and inclusiveness/<id>' },
  { field: 'text', columns: C.text, required: true },
  { field: 'target', columns: C.target, required: true },
  { field: 'lemma', columns: C.lemma, required: false },
  { field: 'domain', columns: C.domain, required: false },
  { field: 'begin', columns: C.begin, required: false },
  { field: 'end', columns: C.end, required: false },
  { field: 'abstractness mean', columns: COLUMNS.abstractness.mean, required: true, note: 'on [0, 1]; gold digit by the protocol\'s rule' },
  { field: 'abstractness std', columns: COLUMNS.abstractness.std, required: false },
  { field: 'inclusiveness mean', columns: COLUMNS.inclusiveness.mean, required: true, note: 'on [0, 1]; gold digit by the protocol\'s rule' },
  { field: 'inclusiveness std', columns: COLUMNS.inclusiveness.std, required: false },
  { field: 'split', columns: C.split, required: false, note: "else the file's split, else test" },
];

function parseRowWith(gold: GoldRule, row: Record<string, unknown>, loc: RowLocation): LikertTask[] {
  const itemId = requiredString(row, C.id, loc);
  const text = requiredString(row, C.text, loc);
  const target = requiredString(row, C.target, loc);
  const lemma = optionalString(row, C.lemma, loc);
  const domain = optionalString(row, C.domain, loc);
  const begin = optionalNumber(row, C.begin, loc, [0, Number.MAX_SAFE_INTEGER]);
  const end = optionalNumber(row, C.end, loc, [0, Number.MAX_SAFE_INTEGER]);
  if (begin !== undefined && end !== undefined && end < begin) {
    requiredNumber(row, C.end, loc, [begin, Number.MAX_SAFE_INTEGER]);
  }
  const split = optionalString(row, C.split, loc) ?? 'test';
  return (Object.keys(COLUMNS) as LikertSubtask[]).map((subtask) => {
    const goldMean = requiredNumber(row, COLUMNS[subtask].mean, loc, [0, 1]);
    const goldStd = optionalNumber(row, COLUMNS[subtask].std, loc, [0, 1]);
    const task: LikertTask = {
      kind: 'likert',
      id: `${subtask}/${itemId}`,
      benchmark: 'abricot',
      split,
      slices: { subtask, ...(domain ? { domain } : {}) },
      subtask,
      itemId,
      text,
      target,
      goldMean,
      gold: goldDigit(gold, goldMean),
    };
    if (lemma !== undefined) task.lemma = lemma;
    if (goldStd !== undefined) task.goldStd = goldStd;
    return task;
  });
}

/** FNV-1a: a stable, seedless hash so shot selection is reproducible across machines. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Three solved examples of the same subtask, never the item itself (nor its sentence),
 * chosen deterministically per item.
 */
export function selectShots(task: LikertTask, pool: readonly LikertTask[], count = FEW_SHOTS): LikertTask[] {
  // One pass keeping the `count` lowest hashes: O(pool) per item, so large datasets plan fast.
  const best: { h: number; t: LikertTask }[] = [];
  for (const t of pool) {
    if (t.subtask !== task.subtask || t.itemId === task.itemId || t.text === task.text) continue;
    const h = hash(`${task.id}|${t.id}`);
    if (best.length === count && h >= (best[best.length - 1]?.h ?? Infinity)) continue;
    best.push({ h, t });
    best.sort((a, b) => a.h - b.h || a.t.id.localeCompare(b.t.id));
    if (best.length > count) best.pop();
  }
  return best.map((b) => b.t);
}

function buildPaperPrompt(task: LikertTask, ctx: PromptContext<LikertTask>, shotCount: number): Prompt {
  const shots = selectShots(task, ctx.pool, shotCount);
  const messages = shots.flatMap((s) => [
    { role: 'user' as const, content: abricotQuestion(s) },
    { role: 'assistant' as const, content: String(s.gold) },
  ]);
  messages.push({ role: 'user', content: abricotQuestion(task) });
  return { style: 'chat', messages, completion: abricotFewShotText(task, shots) };
}

function buildCalamitaPrompt(task: LikertTask): Prompt {
  const text = abricotCalamitaPrompt(task);
  return { style: 'completion', messages: [{ role: 'user', content: text }], completion: text };
}

/**
 * Strict parse of a digit answer: exactly one digit 1–5, optionally surrounded by
 * whitespace or punctuation. Anything else is unparseable (null), counted as wrong.
 */
export function parseLikertAnswer(text: string): number | null {
  const m = /^\s*(?:valore\s*:?\s*)?\**([1-5])\**\s*[.!)]?\s*$/i.exec(text);
  return m?.[1] ? Number(m[1]) : null;
}

/** ABRICOT's protocols: the paper's (default) and the CALAMITA harness's task. */
export const ABRICOT_PROTOCOLS: readonly ProtocolDefinition[] = [
  {
    name: 'paper',
    description: 'ABRICOT paper: 3-shot Italian prompt, gold in five equal bins min(5, 1 + floor(5·mean)), Pearson with the gold',
    settings: { n: 1, params: { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] }, promptStyle: 'chat', shots: FEW_SHOTS, gold: 'equal-bins', headline: 'pearson' },
  },
  {
    name: 'calamita',
    description: 'CALAMITA harness (lm_eval/tasks/abricot): zero-shot, choice " 1".." 5" after the prompt, gold min(4, round(5·mean)) + 1 (Python round), accuracy',
    settings: { n: 1, params: { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] }, promptStyle: 'completion', shots: 0, gold: 'round-half-even', headline: 'accuracy' },
  },
];

function makeAbricot(protocol: RunProtocol): Benchmark<LikertTask> {
  const { settings } = protocol;
  const gold = settings.gold ?? 'equal-bins';
  const shots = settings.shots ?? FEW_SHOTS;
  const layout = protocol.name === 'calamita' ? 'calamita' : 'paper';
  return {
    id: 'abricot',
    scorer: 'likert',
    title: 'ABRICOT — Italian abstractness and inclusiveness (1–5)',
    protocols: ABRICOT_PROTOCOLS,
    protocol,
    bind: makeAbricot,
    fields: ABRICOT_FIELDS,
    parseRow: (row, loc) => parseRowWith(gold, row, loc),
    defaults: { params: { ...settings.params, stop: [...settings.params.stop] }, n: settings.n },
    buildPrompt: (task, ctx) => {
      const prompt = layout === 'calamita' ? buildCalamitaPrompt(task) : buildPaperPrompt(task, ctx, shots);
      return { ...prompt, style: settings.promptStyle };
    },
    reference: (task) => String(task.gold),
    postprocess: (raw) => raw.trim(),
    languageOf: () => undefined,
    choices: LIKERT_CHOICES,
    // Correlations are per subtask, as in the paper, never over both subtasks pooled.
    headline: { metric: 'pearson', slices: ['subtask=abstractness', 'subtask=inclusiveness'] },
    // gpucce/abricot on the Hub holds only a loading script (abricot.py) whose _URLS point to
    // a CSV on GitHub (dataset_it.csv): the URLs are read from the script.
    dataset: { hub: 'gpucce/abricot', files: /\.(csv|tsv|jsonl)(\.gz)?$/ },
    bundled: [{ name: 'abricot', file: 'abricot/items.jsonl', description: '26 Italian sentences × 2 subtasks, hand-written, with plausible gold scores' }],
  };
}

export const abricot: Benchmark<LikertTask> = makeAbricot(defaultProtocol(ABRICOT_PROTOCOLS));
