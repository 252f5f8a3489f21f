/**
 * MXEval-format function completion (DESIGN §6): Kotlin HumanEval and any MXEval file
 * (`task_id, language, prompt, entry_point, test, canonical_solution, description`).
 * Program = prompt + completion + test. Kotlin follows the benchmark card's recipe: stop at
 * the function's closing brace, remove comments, drop a repeated signature, greedy decoding.
 */
import { InputError } from '../errors.ts';
import type { Prompt } from '../models/index.ts';
import { LANGUAGE_SPECS, languageFromTaskId, languageSpec } from '../languages/index.ts';
import { cardCompletion, KOTLIN_RECIPE } from '../prompts/index.ts';
import { extractCode, truncateAtStop } from './postprocess.ts';
import type { UnitTestsTask } from '../types.ts';
import type { Benchmark, FieldMapping, RowLocation } from './benchmark.ts';
import { defaultProtocol, type ProtocolDefinition, type RunProtocol } from './protocol.ts';
import { optionalString, requiredString, stringList } from './fields.ts';
import { normaliseLanguage } from './rocode.ts';

function languageFromId(taskId: string): string | undefined {
  const m = /^(?:HumanEval|MBXP|MBKP|MBPP|Multi-HumanEval|MathQA)[-_]?([A-Za-z+#]+)?\//i.exec(taskId);
  return languageFromTaskId(taskId) ?? (m?.[1] ? normaliseLanguage(m[1]) : undefined);
}

const C = {
  id: ['task_id'],
  language: ['language'],
  split: ['split'],
  prompt: ['prompt'],
  entryPoint: ['entry_point'],
  test: ['test'],
  canonical: ['canonical_solution'],
  description: ['description'],
} as const;

const MXEVAL_FIELDS: FieldMapping[] = [
  { field: 'id', columns: C.id, required: true },
  { field: 'language', columns: C.language, required: false, note: 'else from the task id (HumanEval_kotlin/…, MBKP/…), else --language' },
  { field: 'prompt', columns: C.prompt, required: true },
  { field: 'entry_point', columns: C.entryPoint, required: true },
  { field: 'test', columns: C.test, required: true },
  { field: 'canonical_solution', columns: C.canonical, required: false, note: 'a string, or a list of strings: one reference answer per element' },
  { field: 'description', columns: C.description, required: false },
  { field: 'split', columns: C.split, required: false, note: "else the file's split, else test" },
];

function makeParseRow(benchmarkId: string, defaultLanguage: string | undefined) {
  return (row: Record<string, unknown>, loc: RowLocation): UnitTestsTask[] => {
    const id = requiredString(row, C.id, loc);
    const raw = optionalString(row, C.language, loc) ?? languageFromId(id) ?? defaultLanguage;
    if (!raw) throw new InputError('is missing and the task id names no language (or pass --language)', { ...loc, field: 'language' });
    if (!languageSpec(normaliseLanguage(raw))) {
      throw new InputError(`names no language polyeval runs: ${JSON.stringify(raw)} (languages: ${LANGUAGE_SPECS.map((l) => l.id).join(', ')})`, {
        ...loc,
        field: 'language',
      });
    }
    const task: UnitTestsTask = {
      kind: 'unit-tests',
      id,
      benchmark: benchmarkId,
      split: optionalString(row, C.split, loc) ?? 'test',
      slices: {},
      language: normaliseLanguage(raw),
      prompt: requiredString(row, C.prompt, loc),
      entryPoint: requiredString(row, C.entryPoint, loc),
      test: requiredString(row, C.test, loc),
      canonicalSolution: '',
    };
    // A string, or (JetBrains/Kotlin_HumanEval: `sequence: string`) one reference answer per element.
    const references = stringList(row, C.canonical, loc);
    task.canonicalSolution = references[0] ?? '';
    if (references.length > 1) task.canonicalSolutions = references;
    const description = optionalString(row, C.description, loc);
    if (description !== undefined) task.description = description;
    return [task];
  };
}

function chatInstruction(task: UnitTestsTask): string {
  return `Complete the following ${task.language} function. Answer with the code of the whole function only, in one code block.\n\n${task.prompt}`;
}

/**
 * The Kotlin HumanEval card's post-processing (protocol `mxeval` of kotlin-humaneval): the
 * answer cut at the stop, then {@link cardCompletion} — no comment removal, the lines after the
 * first column-0 `fun ` line of prompt + answer; a fenced (chat) answer gets the lenient cleaning.
 */
function cardPostprocess(raw: string, task: UnitTestsTask): string {
  // A fenced answer comes from a chat endpoint, which the card never ran: it gets the lenient
  // cleaning (the card's rule would keep the answer's repeated signature inside the prompt's).
  if (/```/.test(raw)) return postprocess(raw, task);
  const spec = languageSpec(task.language);
  return cardCompletion(task.prompt, truncateAtStop(raw, spec?.stops ?? KOTLIN_RECIPE.stop));
}

/** polyeval's lenient cleaning: code out of fences, cut at the stop, comments and a repeated signature removed, braces restored. */
function postprocess(raw: string, task: UnitTestsTask): string {
  const code = /```/.test(raw) ? extractCode(raw, task.language) : raw;
  const spec = languageSpec(task.language);
  return spec ? spec.cleanCompletion(truncateAtStop(code, spec.stops), task) : code;
}

function referencesOf(task: UnitTestsTask): string[] {
  return task.canonicalSolutions ?? (task.canonicalSolution ? [task.canonicalSolution] : []);
}

function buildPrompt(task: UnitTestsTask): Prompt {
  return { style: 'completion', completion: task.prompt, messages: [{ role: 'user', content: chatInstruction(task) }] };
}

const cardSettings = (): ProtocolDefinition['settings'] => ({
  n: KOTLIN_RECIPE.n,
  params: { temperature: KOTLIN_RECIPE.temperature, topP: KOTLIN_RECIPE.topP, maxTokens: KOTLIN_RECIPE.maxTokens, stop: [...KOTLIN_RECIPE.stop] },
  promptStyle: 'completion',
  headline: 'pass@1',
});

/** The benchmark card's recipe (MXEval format): completion prompt, greedy, stop at the closing brace. */
export const MXEVAL_PROTOCOLS: readonly ProtocolDefinition[] = [
  {
    name: 'mxeval',
    description:
      "MXEval format with the Kotlin HumanEval card's generation: the row's prompt as plain text, greedy, 256 new tokens, stop at the function's closing brace; code taken out of fences, comments and a repeated signature removed",
    settings: cardSettings(),
  },
];

/** Kotlin HumanEval: the card's code as it runs (default), and polyeval's lenient cleaning. */
export const KOTLIN_HUMANEVAL_PROTOCOLS: readonly ProtocolDefinition[] = [
  {
    name: 'mxeval',
    description:
      "Kotlin HumanEval card's code: the row's prompt as plain text, greedy, 256 new tokens, stop at the function's closing brace, then its clean_asnwer (the lines after the first column-0 `fun ` line of prompt + answer; comments kept); Kotlin language level 2.0",
    settings: {
      ...cardSettings(),
      knownDefects: [
        "the card's clean_asnwer removes comments into a variable it never uses: comments stay, as in the card's runs",
        'min_new_tokens=128 is not sent (docs/reproducing-papers.md says why)',
      ],
    },
  },
  {
    name: 'lenient',
    description:
      "the card's generation with polyeval's lenient cleaning: code out of fences (chat answers), comments removed, a repeated signature dropped wherever it starts, missing closing braces restored",
    settings: cardSettings(),
  },
];

type Described = Pick<Benchmark<UnitTestsTask>, 'dataset' | 'bundled'>;

function mxevalBenchmark(
  id: string,
  title: string,
  defaultLanguage: string | undefined,
  described: Described,
  kotlinLanguageVersion?: string,
  protocols: readonly ProtocolDefinition[] = MXEVAL_PROTOCOLS,
) {
  const make = (protocol: RunProtocol): Benchmark<UnitTestsTask> => ({
    id,
    scorer: 'unit-tests',
    title,
    protocols,
    protocol,
    bind: make,
    fields: MXEVAL_FIELDS,
    parseRow: makeParseRow(id, defaultLanguage),
    defaults: {
      params: { ...protocol.settings.params, stop: [...protocol.settings.params.stop] },
      n: protocol.settings.n,
      ...(defaultLanguage ? { language: defaultLanguage } : {}),
      ...(kotlinLanguageVersion ? { kotlinLanguageVersion } : {}),
    },
    buildPrompt: (task) => ({ ...buildPrompt(task), style: protocol.settings.promptStyle }),
    reference: (task, _language, sample = 0) => {
      const all = referencesOf(task);
      return all.length === 0 ? undefined : all[sample % all.length];
    },
    referenceCount: (task) => referencesOf(task).length,
    postprocess: protocols === KOTLIN_HUMANEVAL_PROTOCOLS && protocol.name === 'mxeval' ? cardPostprocess : postprocess,
    languageOf: (task) => task.language,
    // Runs planned when `mxeval` meant the lenient cleaning (its settings then had no knownDefects) resume with it.
    ...(protocols === KOTLIN_HUMANEVAL_PROTOCOLS
      ? {
          renamedProtocol: (recorded: RunProtocol) =>
            recorded.name === 'mxeval' && recorded.settings.knownDefects === undefined ? { protocol: 'lenient' } : undefined,
        }
      : {}),
    ...described,
  });
  return make(defaultProtocol(protocols));
}

export const kotlinHumanEval = mxevalBenchmark(
  'kotlin-humaneval',
  'Kotlin HumanEval — function completion (MXEval format)',
  'kotlin',
  {
    // JetBrains/Kotlin_HumanEval on the Hub: data/train-00000-of-00001.parquet (161 MXEval rows).
    dataset: { hub: 'JetBrains/Kotlin_HumanEval', files: /^data\/[^/]+\.(parquet|jsonl)(\.gz)?$/ },
    bundled: [
      {
        name: 'kotlin-humaneval',
        file: 'kotlin-humaneval/tasks.jsonl',
        description: 'Kotlin function-completion tasks with KDoc, tests in main() and canonical solutions',
        // Reference answers, `--limit 4`, 2-vCPU machine under heavy load (Nov 2026): an upper figure.
        executorMsPerSample: { kotlin: 47_214 },
      },
    ],
  },
  '2.0',
  KOTLIN_HUMANEVAL_PROTOCOLS,
);
// '2.0': the card's kotlinc (1.9-era) only warned on APIs kotlinc 2.4 rejects at its own level
// (toUpperCase()/toLowerCase(): errors since 2.1); 2.0 is the oldest level kotlinc 2.4 accepts.
/**
 * Published MXEval Kotlin sets (MBKP) call APIs deprecated since Kotlin 1.5, which kotlinc ≥ 2.1
 * rejects as errors; language version 2.0 (the oldest kotlinc 2.4 supports) accepts them.
 */
export const mxeval = mxevalBenchmark('mxeval', 'MXEval-format function completion (any language with a runtime)', undefined, {}, '2.0');
