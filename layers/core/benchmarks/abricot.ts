/**
 * ABRICOT (DESIGN §6): Italian sentences with a target word, judged for abstractness and
 * inclusiveness on a 1–5 scale. One row becomes two tasks, `abstractness/<id>` and
 * `inclusiveness/<id>`. Two protocols: the paper's (Fig. 2 prompts, 3-shot, gold
 * min(5, 1 + ⌊5·mean⌋), Pearson) and the CALAMITA harness's (its task file's prompt, zero-shot
 * by default, gold min(4, round(5·mean)) + 1, accuracy). `--shots N` sets the number of solved
 * examples for both (lm-eval's `--num_fewshot`); an example never shows the evaluated word.
 */
import type { LikertMode, Prompt } from '../models/provider.ts';
import type { LikertTask } from '../types.ts';
import { abricotCalamitaPrompt, abricotPaperPrompt, fewShotText, TARGET_DELIMITER } from '../prompts/abricot.ts';
import { chatTemplateOf, type ChatTemplateName } from '../prompts/chat-templates.ts';
import type { Benchmark, FieldMapping, PromptContext, RowLocation } from './benchmark.ts';
import { discretise, goldDigit } from './likert-gold.ts';
import { defaultProtocol, type GoldRule, type ProtocolDefinition, type RunProtocol } from './protocol.ts';
import { ABRICOT_METRICS } from '../metrics/abricot-metrics.ts';
import { wordOf } from '../metrics/likert-words.ts';
import { optionalNumber, optionalString, requiredNumber, requiredString } from './fields.ts';

export const LIKERT_CHOICES = ['1', '2', '3', '4', '5'] as const;
export const FEW_SHOTS = 3;

/** ABRICOT's subtasks: each row is judged on both scales, one task per subtask. */
export const ABRICOT_SUBTASKS = ['abstractness', 'inclusiveness'] as const;
export type AbricotSubtask = (typeof ABRICOT_SUBTASKS)[number];

const COLUMNS: Record<AbricotSubtask, { mean: string[]; std: string[] }> = {
  abstractness: { mean: ['abs_mean', 'abstractness_mean', 'abstractness mean'], std: ['abs_std', 'abstractness_std', 'abstractness std'] },
  inclusiveness: { mean: ['inc_mean', 'inclusiveness_mean', 'inclusiveness mean'], std: ['inc_std', 'inclusiveness_std', 'inclusiveness std'] },
};

export { discretise, wordOf };

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
  { field: 'abstractness mean', columns: COLUMNS.abstractness.mean, required: true, note: "on [0, 1]; gold digit by the protocol's rule" },
  { field: 'abstractness std', columns: COLUMNS.abstractness.std, required: false },
  { field: 'inclusiveness mean', columns: COLUMNS.inclusiveness.mean, required: true, note: "on [0, 1]; gold digit by the protocol's rule" },
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
  return ABRICOT_SUBTASKS.map((subtask) => {
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
 * `count` solved examples of the same subtask, chosen deterministically per item, never the
 * item itself, its sentence, or any row about the same word (an example showing the evaluated
 * word with its gold score would hint at the answer; the paper's question is how a model
 * judges a word in a context it has not been told about).
 */
export function selectShots(task: LikertTask, pool: readonly LikertTask[], count = FEW_SHOTS): LikertTask[] {
  // One pass keeping the `count` lowest hashes: O(pool) per item, so large datasets plan fast.
  const best: { h: number; t: LikertTask }[] = [];
  const word = wordOf(task);
  for (const t of pool) {
    if (t.subtask !== task.subtask || t.itemId === task.itemId || t.text === task.text || wordOf(t) === word) continue;
    const h = hash(`${task.id}|${t.id}`);
    if (best.length === count && h >= (best[best.length - 1]?.h ?? Infinity)) continue;
    best.push({ h, t });
    best.sort((a, b) => a.h - b.h || a.t.id.localeCompare(b.t.id));
    if (best.length > count) best.pop();
  }
  return best.map((b) => b.t);
}

/**
 * The paper's layout: each shot a user turn (the Fig. 2 prompt) answered by an assistant turn
 * (its gold digit), then the item. Raw-text calls get the turns rendered by the chat template
 * the protocol names, or, with `none`, lm-eval's flat few-shot text.
 */
function buildPaperPrompt(task: LikertTask, ctx: PromptContext<LikertTask>, shotCount: number, templateName: ChatTemplateName | undefined): Prompt {
  const shots = selectShots(task, ctx.pool, shotCount);
  const messages = shots.flatMap((s) => [
    { role: 'user' as const, content: abricotPaperPrompt(s) },
    { role: 'assistant' as const, content: String(s.gold) },
  ]);
  messages.push({ role: 'user', content: abricotPaperPrompt(task) });
  const template = chatTemplateOf(templateName);
  return { style: 'chat', messages, completion: template ? template.render(messages) : fewShotText(abricotPaperPrompt, task, shots) };
}

/** How the paper's chat-layout prompt reached the model, for the manifest. */
function paperPromptNotes(templateName: ChatTemplateName | undefined, mode: LikertMode | null): string[] {
  const template = chatTemplateOf(templateName);
  if (mode === 'likelihood') {
    return template
      ? [
          `prompt: chat turns rendered with the ${template.name} chat template (${template.source}); BOS left to the server; choices appended after ${JSON.stringify(template.choiceDelimiter)}`,
        ]
      : [
          "prompt: no chat template applied: the turns are sent as lm-eval's flat few-shot text (the paper's instruct models saw their template; see --chat-template)",
        ];
  }
  const raw = template ? `rendered with the ${template.name} chat template` : "lm-eval's flat few-shot text, no chat template";
  return [`prompt: chat endpoints apply the served model's own chat template; raw-text endpoints (TGI) get ${raw}`];
}

/** The harness's layout: the task file's prompt, after `shotCount` solved examples in lm-eval's few-shot text. */
function buildCalamitaPrompt(task: LikertTask, ctx: PromptContext<LikertTask>, shotCount: number): Prompt {
  const text = fewShotText(abricotCalamitaPrompt, task, selectShots(task, ctx.pool, shotCount));
  return { style: 'completion', messages: [{ role: 'user', content: text }], completion: text };
}

/** ABRICOT's protocols: the paper's (default) and the CALAMITA harness's task. */
export const ABRICOT_PROTOCOLS: readonly ProtocolDefinition[] = [
  {
    name: 'paper',
    description: 'ABRICOT paper: Fig. 2 prompts as printed (typos kept), 3-shot, gold in five equal bins min(5, 1 + floor(5·mean)), Pearson with the gold',
    settings: {
      n: 1,
      params: { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] },
      promptStyle: 'chat',
      shots: FEW_SHOTS,
      chatTemplate: 'none',
      gold: 'equal-bins',
      headline: 'pearson',
      knownDefects: [
        'the figure prints "prola" for "parola" (abstractness value 4, inclusiveness value 2): kept, as the paper shows its prompts',
        'the paper does not print its few-shot layout nor which examples it showed: shots are user/assistant turns, drawn per item, never about the evaluated word',
        "the paper's instruct models saw their chat template: give --chat-template for raw-text (likelihood) calls; chat endpoints apply the server's own",
      ],
    },
  },
  {
    name: 'calamita',
    description:
      'CALAMITA harness task as of CALAMITA-AILC/lm-evaluation-harness f067d8bb (lm_eval/tasks/abricot): zero-shot (--shots as --num_fewshot), choice " 1".." 5" after the prompt, gold min(4, round(5·mean)) + 1 (Python round), accuracy',
    settings: {
      n: 1,
      params: { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] },
      promptStyle: 'completion',
      shots: 0,
      gold: 'round-half-even',
      headline: 'accuracy',
      knownDefects: [
        'reproduced: f067d8bb (2024-10-25), every row, no typos, no answer instruction, metric acc',
        'not reproduced: ace92401 (2024-10-15) keeps a debug line ds.select(range(25)) that evaluates only the first 25 rows of each subtask',
        'not reproduced: a published variant of utils.py keeps the paper\'s "prola" typos in the prompts',
        'not reproduced: CALAMITA-AILC/CALAMITA-harness (1167acce and later) appends "Rispondi esclusivamente con il numero scelto senza aggiungere nessuna spiegazione" and reports pearson',
        'abricot_inc.yaml loads the "abs" dataset config: harmless, the rows carry both inc_mean and abs_mean',
        'lm-eval draws shots with random.Random(1234) and excludes only the row itself; polyeval draws them by a stable hash and excludes the evaluated word',
      ],
    },
  },
];

function makeAbricot(protocol: RunProtocol): Benchmark<LikertTask> {
  const { settings } = protocol;
  const gold = settings.gold ?? 'equal-bins';
  const shots = settings.shots ?? FEW_SHOTS;
  const layout = protocol.name === 'calamita' ? 'calamita' : 'paper';
  const template = layout === 'paper' ? chatTemplateOf(settings.chatTemplate) : undefined;
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
      const prompt = layout === 'calamita' ? buildCalamitaPrompt(task, ctx, shots) : buildPaperPrompt(task, ctx, shots, settings.chatTemplate);
      return { ...prompt, style: settings.promptStyle };
    },
    reference: (task) => String(task.gold),
    postprocess: (raw) => raw.trim(),
    languageOf: () => undefined,
    choices: LIKERT_CHOICES,
    extraMetrics: ABRICOT_METRICS,
    choiceDelimiter: template ? template.choiceDelimiter : TARGET_DELIMITER,
    promptNotes: (mode) => (layout === 'paper' && settings.promptStyle === 'chat' ? paperPromptNotes(settings.chatTemplate, mode) : []),
    // Correlations are per subtask, as in the paper, never over both subtasks pooled.
    headlineSlices: ['subtask=abstractness', 'subtask=inclusiveness'],
    // gpucce/abricot on the Hub holds only a loading script (abricot.py) whose _URLS point to
    // a CSV on GitHub (dataset_it.csv): the URLs are read from the script.
    dataset: { hub: 'gpucce/abricot', files: /\.(csv|tsv|jsonl)(\.gz)?$/ },
    bundled: [{ name: 'abricot', file: 'abricot/items.jsonl', description: '26 Italian sentences × 2 subtasks, hand-written, with plausible gold scores' }],
  };
}

export const abricot: Benchmark<LikertTask> = makeAbricot(defaultProtocol(ABRICOT_PROTOCOLS));
