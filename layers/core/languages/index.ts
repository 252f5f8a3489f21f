/**
 * The language registry: an explicit array with one entry per language, each the spec in
 * `<id>.ts` of this folder. Everything that varies by language (fence tags, aliases, MXEval
 * cleaning, code-switching scanners, executor images, toolchain options) is read from here;
 * the runtimes that compile and run each language are layers/sandbox/languages/<id>.ts.
 * @example
 * const spec = languageSpec('java'); // javaSpec
 */
import { cSpec } from './c.ts';
import { cppSpec } from './cpp.ts';
import { javaSpec } from './java.ts';
import { javascriptSpec } from './javascript.ts';
import { kotlinSpec } from './kotlin.ts';
import { pythonSpec } from './python.ts';
import { executorImages, type ExecutorImage } from './images.ts';
import type { LanguageSpec, RunToolchainSettings, ToolchainOptions } from './spec.ts';

export type { LanguageSpec, RunToolchainSettings, ToolchainOptions } from './spec.ts';
export type { ExecutorImage } from './images.ts';
export { FARGATE_TASK, JUDGE_MEMORY_MB } from './images.ts';

/** Every language, in a fixed order (executor images and synth follow it). */
export const LANGUAGE_SPECS: readonly LanguageSpec[] = [pythonSpec, cSpec, cppSpec, kotlinSpec, javaSpec, javascriptSpec];

/** The executor images, in a fixed order so synth is deterministic (the C++ image serves C too). */
export const EXECUTOR_IMAGES: readonly ExecutorImage[] = executorImages(LANGUAGE_SPECS);

/** The spec of a language id, if it has one. */
export function languageSpec(id: string): LanguageSpec | undefined {
  return LANGUAGE_SPECS.find((s) => s.id === id);
}

/** The language id an alias names (`js` → `javascript`, `c++17` → `cpp`), if a spec claims it. */
export function languageFromAlias(alias: string): string | undefined {
  return LANGUAGE_SPECS.find((s) => s.aliases.includes(alias) || s.aliasPattern?.test(alias) === true)?.id;
}

/** The language id a spelling names, case and spaces ignored (`C++` → `cpp`, `Python 3` → `python`), if a spec claims it. */
export function languageIdOf(spelling: string): string | undefined {
  return languageFromAlias(spelling.toLowerCase().replace(/\s+/g, ''));
}

/** The language id an MXEval task id names (`MBJP/3` → `java`), if a spec claims its prefix. */
export function languageFromTaskId(taskId: string): string | undefined {
  const prefix = taskId.split('/')[0]?.toLowerCase() ?? '';
  return LANGUAGE_SPECS.find((s) => s.mxevalPrefixes.some((p) => p.toLowerCase() === prefix))?.id;
}

/**
 * The toolchain options a run's settings give each language (only languages with some).
 * @example
 * toolchainOptionsByLanguage({ kotlin_language_version: '2.0' }) // { kotlin: { languageVersion: '2.0' } }
 */
export function toolchainOptionsByLanguage(settings: RunToolchainSettings): Record<string, ToolchainOptions> {
  const out: Record<string, ToolchainOptions> = {};
  for (const spec of LANGUAGE_SPECS) {
    const options = spec.toolchainOptions?.(settings) ?? {};
    if (Object.keys(options).length > 0) out[spec.id] = options;
  }
  return out;
}
export { cDeclarations, C_KEYWORDS, type Declared } from './identifiers.ts';
export { BRACE_STOPS } from './spec.ts';
export { maskCFamily } from './brace-blocks.ts';
