/**
 * C (gcc, gnu11): RoCode's `c` and MXEval-format C files. Completions are kept as written
 * (no stop sequences), as before this spec existed.
 */
import { C_KEYWORDS, cDeclarations } from './identifiers.ts';
import type { LanguageSpec } from './spec.ts';

/** Lines that begin C or C++ code (shared with cpp.ts: an answer may mix the two). */
export const C_CODE_START = /^\s*(#\s*include|#\s*define|using\s|typedef\s|struct\s|int\s|long\s|void\s|char\s|double\s|float\s|unsigned\s|const\s|static\s|template\s*<|namespace\s|return\b|if\s*\(|for\s*\(|while\s*\()/;

/** C's spec. */
export const cSpec: LanguageSpec = {
  id: 'c',
  aliases: ['c'],
  aliasPattern: /^(gcc|c\d\d|gnuc)/,
  fenceTags: ['c', 'h'],
  codeStart: C_CODE_START,
  mxevalPrefixes: [],
  stops: [],
  cleanCompletion: (code) => code,
  declarations: cDeclarations,
  keywords: C_KEYWORDS,
  // gcc and g++ share one image.
  executor: { image: 'cpp', memoryMb: 2048 },
};
