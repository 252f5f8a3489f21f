/**
 * ABRICOT (DESIGN §6): Italian sentences with a target word, judged for abstractness and
 * inclusiveness on a 1–5 scale. One row becomes two tasks, `abstractness/<id>` and
 * `inclusiveness/<id>`. Four protocols, each naming the code it reproduces: `paper` (the
 * authors' own lm-eval task: lined prompt with the typos, 3-shot, gold min(4, round(5·mean)) + 1
 * with Python's round, Pearson), `paper-figure` (the same with Fig. 2's typeset text),
 * `calamita` (the organisers' harness of record: answer instruction, zero-shot, Pearson) and
 * `calamita-fork` (an earlier fork commit, accuracy). `--shots N` and `--shot-seed S` set the
 * examples as lm-eval's `--num_fewshot` and `fewshot_random_seed` do; `--gold` the gold rule.
 */
import type { LikertMode, Prompt } from '../models/index.ts';
import type { LikertTask } from '../types.ts';
import {
  ABRICOT_SUBTASKS,
  type AbricotSubtask,
  abricotAuthorsPrompt,
  abricotCalamitaPrompt,
  abricotHarnessPrompt,
  abricotPaperPrompt,
  fewShotText,
  TARGET_DELIMITER,
} from '../prompts/index.ts';
import { chatTemplateOf } from '../prompts/index.ts';
import type { Benchmark, FieldMapping, PromptContext, RowLocation } from './benchmark.ts';
import { discretise, goldDigit } from './likert-gold.ts';
import { defaultProtocol, type GoldRule, type ProtocolDefinition, type ProtocolSettings, type RunProtocol } from './protocol.ts';
import { LM_EVAL_FEWSHOT_SEED, lmEvalShotPositions } from './lm-eval-shots.ts';
import { ABRICOT_METRICS } from './abricot-metrics.ts';
import { wordOf } from '../metrics/index.ts';
import { optionalNumber, optionalString, requiredNumber, requiredString } from './fields.ts';

export const LIKERT_CHOICES = ['1', '2', '3', '4', '5'] as const;
export const FEW_SHOTS = 3;

export { ABRICOT_SUBTASKS, type AbricotSubtask };

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

type Layout = 'authors' | 'figure' | 'harness' | 'fork';

const PROMPTS: Record<Layout, (t: Pick<LikertTask, 'subtask' | 'target' | 'text'>) => string> = {
  authors: abricotAuthorsPrompt,
  figure: abricotPaperPrompt,
  harness: abricotHarnessPrompt,
  fork: abricotCalamitaPrompt,
};

const LAYOUT_OF: Record<string, Layout> = { paper: 'authors', 'paper-figure': 'figure', calamita: 'harness', 'calamita-fork': 'fork' };

// Per dataset: the tasks of one subtask and split, in file order (lm-eval's few-shot docs).
const shotPools = new WeakMap<readonly LikertTask[], Map<string, LikertTask[]>>();

function shotPoolOf(pool: readonly LikertTask[], task: LikertTask): LikertTask[] {
  let bySlice = shotPools.get(pool);
  if (!bySlice) {
    bySlice = new Map();
    shotPools.set(pool, bySlice);
  }
  const key = `${task.subtask}|${task.split}`;
  let same = bySlice.get(key);
  if (!same) {
    same = pool.filter((t) => t.subtask === task.subtask && t.split === task.split);
    bySlice.set(key, same);
  }
  return same;
}

/**
 * `count` solved examples of the same subtask and split, drawn as lm-eval's sampler draws them
 * with `random.Random(seed)` over the items in file order (see {@link lmEvalShotPositions}):
 * only the item itself is excluded, as in lm-eval.
 */
export function selectShots(task: LikertTask, pool: readonly LikertTask[], count = FEW_SHOTS, seed = LM_EVAL_FEWSHOT_SEED): LikertTask[] {
  if (count === 0) return [];
  const same = shotPoolOf(pool, task);
  const position = same.findIndex((t) => t.id === task.id);
  if (position < 0) throw new Error(`task ${task.id} is not in its own few-shot pool`);
  // lm-eval stops with "Sample larger than population" when a split has k items or fewer;
  // polyeval then shows every other item (k = items − 1) rather than refusing a small file.
  return lmEvalShotPositions(same, position, Math.min(count, same.length - 1), seed).map((i) => same[i] as LikertTask);
}

/**
 * lm-eval's layout: without a chat template, one text (each example's prompt, " ", its gold
 * digit, a blank line; then the item); with `--chat-template`, the turns lm-eval's
 * `--apply_chat_template --fewshot_as_multiturn` makes (user: prompt; assistant: gold digit)
 * rendered by that template.
 */
function buildPrompt(task: LikertTask, ctx: PromptContext<LikertTask>, layout: Layout, settings: ProtocolSettings): Prompt {
  const prompt = PROMPTS[layout];
  const shots = selectShots(task, ctx.pool, settings.shots ?? FEW_SHOTS, settings.shotSeed ?? LM_EVAL_FEWSHOT_SEED);
  const text = fewShotText(prompt, task, shots);
  const template = chatTemplateOf(settings.chatTemplate);
  if (!template) return { style: settings.promptStyle, messages: [{ role: 'user', content: text }], completion: text };
  const messages = shots.flatMap((s) => [
    { role: 'user' as const, content: prompt(s) },
    { role: 'assistant' as const, content: String(s.gold) },
  ]);
  messages.push({ role: 'user', content: prompt(task) });
  return { style: settings.promptStyle, messages, completion: template.render(messages) };
}

/** How the prompt reached the model, for the manifest. */
function promptNotesOf(settings: ProtocolSettings, mode: LikertMode | null): string[] {
  const template = chatTemplateOf(settings.chatTemplate);
  const raw = template
    ? `chat turns rendered with the ${template.name} chat template (${template.source}); BOS left to the server; choices appended after ${JSON.stringify(template.choiceDelimiter)}`
    : "no chat template applied: lm-eval's few-shot text, as the authors' lm-eval runs sent it";
  if (mode === 'likelihood') return [`prompt: ${raw}`];
  return [`prompt: chat endpoints apply the served model's own chat template to one user turn; raw-text endpoints (TGI) get ${raw}`];
}

const AUTHORS_SOURCE = 'gpucce/lm-evaluation-harness 4d8bb2d6a0a246e51a4b4bddfd2e9d1666cbee09 (branch add_abricot, 2024-09-16), lm_eval/tasks/abricot';
const HARNESS_SOURCE =
  'CALAMITA-AILC/CALAMITA-harness 1167acceaec95c1a0d61865ba963cad8fd4493e6 (2024-11-12; unchanged through 2f7e3230), lm_eval/tasks/calamita/abricot; = CALAMITA-AILC/calamita-eval 4471a17417045c50c3bedecdd6514429402d3425, tasks/abricot';
const FORK_SOURCE = 'CALAMITA-AILC/lm-evaluation-harness f067d8bb846c258d0ea89e95009b353a04ead5b3 (2024-10-25), lm_eval/tasks/abricot';
const SAMPLER_NOTE =
  "shots drawn as lm-eval's sampler draws them: random.Random(--shot-seed, default 1234), sample(k + 1) per item in file order, only the item itself excluded (a split with k items or fewer, where lm-eval stops, shows every other item)";
const LIKELIHOOD = { temperature: 0, topP: 1, maxTokens: 4, stop: ['\n'] };

/** ABRICOT's protocols: the authors' task (default), the figure's text, the CALAMITA harness and its fork. */
export const ABRICOT_PROTOCOLS: readonly ProtocolDefinition[] = [
  {
    name: 'paper',
    description: `ABRICOT as its authors ran it (${AUTHORS_SOURCE}): their prompt lines with the "prola" typos, 3-shot in lm-eval's layout and draw (seed 1234), gold round(5·mean) capped at 4, + 1 (Python round), no chat template, Pearson`,
    settings: {
      n: 1,
      params: LIKELIHOOD,
      promptStyle: 'completion',
      shots: FEW_SHOTS,
      shotSeed: LM_EVAL_FEWSHOT_SEED,
      chatTemplate: 'none',
      gold: 'authors',
      headline: 'pearson',
      source: AUTHORS_SOURCE,
      knownDefects: [
        'kept: the "prola" typos of the task file (abstractness value 4, inclusiveness value 2), as the authors ran it',
        SAMPLER_NOTE,
        "the task file names no few-shot count: 3 is the paper's",
      ],
    },
  },
  {
    name: 'paper-figure',
    description:
      "ABRICOT paper's Fig. 2 as typeset (running text, typos kept, full stop after the abstractness values), otherwise as `paper`: the authors' 3-shot draw, gold and Pearson",
    settings: {
      n: 1,
      params: LIKELIHOOD,
      promptStyle: 'completion',
      shots: FEW_SHOTS,
      shotSeed: LM_EVAL_FEWSHOT_SEED,
      chatTemplate: 'none',
      gold: 'authors',
      headline: 'pearson',
      source: "CEUR Vol-3878 paper 128, Fig. 2 (the figure flattens the task file's lines)",
      knownDefects: ["the figure's text, not what the authors' code sent: see `paper`", SAMPLER_NOTE],
    },
  },
  {
    name: 'calamita',
    description: `CALAMITA organisers' harness of record (${HARNESS_SOURCE}): the fork's prompt plus "Rispondi esclusivamente con il numero scelto senza aggiungere nessuna spiegazione", zero-shot, choices " 1".." 5", gold as the authors', Pearson`,
    settings: {
      n: 1,
      params: LIKELIHOOD,
      promptStyle: 'completion',
      shots: 0,
      shotSeed: LM_EVAL_FEWSHOT_SEED,
      chatTemplate: 'none',
      gold: 'authors',
      headline: 'pearson',
      source: HARNESS_SOURCE,
      knownDefects: [
        "calamita-eval's run script (bash/run_model.sh) runs lm_eval with vllm, no --num_fewshot and no --apply_chat_template: zero-shot, no chat template",
        'abricot_inc.yaml loads the "abs" dataset config: harmless, the rows carry both inc_mean and abs_mean',
        SAMPLER_NOTE,
      ],
    },
  },
  {
    name: 'calamita-fork',
    description: `CALAMITA fork task (${FORK_SOURCE}): lined prompt without typos or answer instruction, zero-shot, gold as the authors', accuracy`,
    settings: {
      n: 1,
      params: LIKELIHOOD,
      promptStyle: 'completion',
      shots: 0,
      shotSeed: LM_EVAL_FEWSHOT_SEED,
      chatTemplate: 'none',
      gold: 'authors',
      headline: 'accuracy',
      source: FORK_SOURCE,
      knownDefects: [
        'reproduced: f067d8bb (2024-10-25), every row, no typos, no answer instruction, metric acc',
        'not reproduced: ace92401 (2024-10-15) keeps a debug line ds.select(range(25)) that evaluates only the first 25 rows of each subtask',
        'abricot_inc.yaml loads the "abs" dataset config: harmless, the rows carry both inc_mean and abs_mean',
        SAMPLER_NOTE,
      ],
    },
  },
];

function makeAbricot(protocol: RunProtocol): Benchmark<LikertTask> {
  const { settings } = protocol;
  const gold = settings.gold ?? 'authors';
  const layout = LAYOUT_OF[protocol.name] ?? 'authors';
  const template = chatTemplateOf(settings.chatTemplate);
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
    buildPrompt: (task, ctx) => buildPrompt(task, ctx, layout, settings),
    reference: (task) => String(task.gold),
    postprocess: (raw) => raw.trim(),
    languageOf: () => undefined,
    choices: LIKERT_CHOICES,
    extraMetrics: ABRICOT_METRICS,
    choiceDelimiter: template ? template.choiceDelimiter : TARGET_DELIMITER,
    promptNotes: (mode) => promptNotesOf(settings, mode),
    // Correlations are per subtask, as in the paper, never over both subtasks pooled.
    headlineSlices: ['subtask=abstractness', 'subtask=inclusiveness'],
    // gpucce/abricot on the Hub holds only a loading script (abricot.py) whose _URLS point to
    // a CSV on GitHub (dataset_it.csv): the URLs are read from the script.
    dataset: { hub: 'gpucce/abricot', files: /\.(csv|tsv|jsonl)(\.gz)?$/ },
    bundled: [{ name: 'abricot', file: 'abricot/items.jsonl', description: '26 Italian sentences × 2 subtasks, hand-written, with plausible gold scores' }],
    legacyProtocolChoice: {},
    renamedProtocol: (recorded) => (recorded.settings.source === undefined ? LEGACY_NAMES[recorded.name] : undefined),
  };
}

/**
 * Runs planned before the protocols named their source: `paper` then sent the figure's text
 * with equal bins, `calamita` the fork's task; resuming one re-binds the protocol it followed.
 */
const LEGACY_NAMES: Record<string, { protocol: string; gold?: GoldRule }> = {
  paper: { protocol: 'paper-figure', gold: 'equal-bins' },
  calamita: { protocol: 'calamita-fork' },
};

export const abricot: Benchmark<LikertTask> = makeAbricot(defaultProtocol(ABRICOT_PROTOCOLS));
