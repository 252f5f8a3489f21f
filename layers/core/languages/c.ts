/**
 * C (gcc, gnu11): RoCode's `c` and MXEval-format C files. Completions are kept as written
 * (no stop sequences), as before this spec existed.
 */
import { C_KEYWORDS, cDeclarations } from './identifiers.ts';
import { NATIVE_CODE_START } from './native.ts';
import type { LanguageSpec } from './spec.ts';

/** C's spec. */
export const cSpec: LanguageSpec = {
  id: 'c',
  aliases: ['c'],
  aliasPattern: /^(gcc|c\d\d|gnuc)/,
  fenceTags: ['c', 'h'],
  codeStart: NATIVE_CODE_START,
  mxevalPrefixes: [],
  stops: [],
  cleanCompletion: (code) => code,
  declarations: cDeclarations,
  keywords: C_KEYWORDS,
  // gcc and g++ share one image.
  executor: { image: 'cpp', memoryMb: 2048 },
};
