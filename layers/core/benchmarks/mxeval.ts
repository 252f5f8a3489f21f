/**
 * MXEval-format function completion (DESIGN §6): Kotlin HumanEval and any MXEval file
 * (`task_id, language, prompt, entry_point, test, canonical_solution, description`).
 * Program = prompt + completion + test. Kotlin follows the benchmark card's recipe: stop at
 * the function's closing brace, remove comments, drop a repeated signature, greedy decoding.
 */
import { InputError } from '../errors.ts';
import type { Prompt } from '../models/provider.ts';
import { languageFromTaskId, languageSpec } from '../languages/index.ts';
import { KOTLIN_RECIPE } from '../prompts/kotlin.ts';
import { cleanKotlinCompletion, extractCode, stripKotlinComments, truncateAtStop } from '../scoring/postprocess.ts';
import type { UnitTestsTask } from '../types.ts';
import type { Benchmark, RowLocation } from './benchmark.ts';
import { optionalString, requiredString } from './fields.ts';
import { normaliseLanguage } from './rocode.ts';

/** HumanEval's stops for Python completions. */
const PYTHON_STOPS = ['\ndef ', '\nclass ', '\nif __name__', '\nprint(', '\n#'];

function languageFromId(taskId: string): string | undefined {
  const m = /^(?:HumanEval|MBXP|MBKP|MBPP|Multi-HumanEval|MathQA)[-_]?([A-Za-z+#]+)?\//i.exec(taskId);
  if (/^MBKP\//i.test(taskId)) return 'kotlin';
  return languageFromTaskId(taskId) ?? (m?.[1] ? normaliseLanguage(m[1]) : undefined);
}

function makeParseRow(benchmarkId: string, defaultLanguage: string | undefined) {
  return (row: Record<string, unknown>, loc: RowLocation): UnitTestsTask[] => {
    const id = requiredString(row, ['task_id'], loc);
    const raw = optionalString(row, ['language'], loc) ?? languageFromId(id) ?? defaultLanguage;
    if (!raw) throw new InputError('is missing and the task id names no language (or pass --language)', { ...loc, field: 'language' });
    const task: UnitTestsTask = {
      kind: 'unit-tests',
      id,
      benchmark: benchmarkId,
      split: optionalString(row, ['split'], loc) ?? 'test',
      slices: {},
      language: normaliseLanguage(raw),
      prompt: requiredString(row, ['prompt'], loc),
      entryPoint: requiredString(row, ['entry_point'], loc),
      test: requiredString(row, ['test'], loc),
      canonicalSolution: optionalString(row, ['canonical_solution'], loc) ?? '',
    };
    const description = optionalString(row, ['description'], loc);
    if (description !== undefined) task.description = description;
    return [task];
  };
}

/**
 * Keeps a Kotlin completion to the function it completes: appends the closing braces a
 * stop sequence removed (servers drop the stop text) and cuts anything after the brace that
 * closes the function (a model running on into its own `main`).
 */
export function closeKotlinFunction(completion: string): string {
  const code = stripKotlinComments(completion);
  let depth = 1;
  let inString: string | null = null;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (inString) {
      if (c === '\\') i++;
      else if (code.startsWith(inString, i)) {
        i += inString.length - 1;
        inString = null;
      }
      continue;
    }
    if (code.startsWith('"""', i)) {
      inString = '"""';
      i += 2;
    } else if (c === '"' || c === "'") inString = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return `${code.slice(0, i + 1)}\n`;
  }
  return `${code.replace(/\s+$/, '')}${'\n}'.repeat(depth)}\n`;
}

function chatInstruction(task: UnitTestsTask): string {
  return `Complete the following ${task.language} function. Answer with the code of the whole function only, in one code block.\n\n${task.prompt}`;
}

function postprocess(raw: string, task: UnitTestsTask): string {
  if (task.language === 'kotlin') {
    const fenced = /```/.test(raw) ? extractCode(raw, 'kotlin') : raw;
    return closeKotlinFunction(cleanKotlinCompletion(truncateAtStop(fenced, KOTLIN_RECIPE.stop)));
  }
  const code = /```/.test(raw) ? extractCode(raw, task.language) : raw;
  const spec = languageSpec(task.language);
  if (spec) return spec.cleanCompletion(truncateAtStop(code, spec.stops), task);
  return task.language === 'python' ? truncateAtStop(code, PYTHON_STOPS).replace(/(\ndef |\nclass |\nif __name__|\nprint\(|\n#)$/, '') : code;
}

function buildPrompt(task: UnitTestsTask): Prompt {
  return { style: 'completion', completion: task.prompt, messages: [{ role: 'user', content: chatInstruction(task) }] };
}

function mxevalBenchmark(id: string, title: string, defaultLanguage: string | undefined, kotlinLanguageVersion?: string): Benchmark<UnitTestsTask> {
  return {
    id,
    scorer: 'unit-tests',
    title,
    parseRow: makeParseRow(id, defaultLanguage),
    defaults: {
      params: { temperature: KOTLIN_RECIPE.temperature, topP: KOTLIN_RECIPE.topP, maxTokens: KOTLIN_RECIPE.maxTokens, stop: [...KOTLIN_RECIPE.stop] },
      ...(defaultLanguage ? { language: defaultLanguage } : {}),
      ...(kotlinLanguageVersion ? { kotlinLanguageVersion } : {}),
    },
    buildPrompt,
    reference: (task) => task.canonicalSolution || undefined,
    postprocess,
    languageOf: (task) => task.language,
  };
}

export const kotlinHumanEval = mxevalBenchmark('kotlin-humaneval', 'Kotlin HumanEval — function completion (MXEval format)', 'kotlin');
/**
 * Published MXEval Kotlin sets (MBKP) call APIs deprecated since Kotlin 1.5, which kotlinc ≥ 2.1
 * rejects as errors; language version 2.0 (the oldest kotlinc 2.4 supports) accepts them.
 */
export const mxeval = mxevalBenchmark('mxeval', 'MXEval-format function completion (any language with a runtime)', undefined, '2.0');
