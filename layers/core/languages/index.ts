/**
 * The core language specs: an explicit array, one entry per language that has one (the
 * older languages still keep theirs in postprocess.ts, rocode.ts and mxeval.ts).
 * @example
 * const spec = languageSpec('java'); // javaSpec
 */
import { javaSpec } from './java.ts';
import { javascriptSpec } from './javascript.ts';
import type { LanguageSpec } from './spec.ts';

export type { LanguageSpec } from './spec.ts';

export const LANGUAGE_SPECS: readonly LanguageSpec[] = [javaSpec, javascriptSpec];

/** The spec of a language id, if it has one. */
export function languageSpec(id: string): LanguageSpec | undefined {
  return LANGUAGE_SPECS.find((s) => s.id === id);
}

/** The language id an alias names (`js` → `javascript`), if a spec claims it. */
export function languageFromAlias(alias: string): string | undefined {
  return LANGUAGE_SPECS.find((s) => s.aliases.includes(alias))?.id;
}

/** The language id an MXEval task id names (`MBJP/3` → `java`), if a spec claims its prefix. */
export function languageFromTaskId(taskId: string): string | undefined {
  const prefix = taskId.split('/')[0]?.toLowerCase() ?? '';
  return LANGUAGE_SPECS.find((s) => s.mxevalPrefixes.some((p) => p.toLowerCase() === prefix))?.id;
}
