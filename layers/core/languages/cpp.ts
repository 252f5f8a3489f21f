/** C++ (g++, gnu++17): RoCode's `cpp` and MXEval-format C++ files, completions kept as written. */
import { C_KEYWORDS, cDeclarations } from './identifiers.ts';
import { NATIVE_CODE_START } from './native.ts';
import type { LanguageSpec } from './spec.ts';

/** C++'s spec. */
export const cppSpec: LanguageSpec = {
  id: 'cpp',
  aliases: ['cpp', 'c++'],
  aliasPattern: /^(c\+\+|cpp|cxx|g\+\+)/,
  fenceTags: ['cpp', 'c++', 'cc', 'cxx', 'hpp', 'h++'],
  codeStart: NATIVE_CODE_START,
  mxevalPrefixes: [],
  stops: [],
  cleanCompletion: (code) => code,
  declarations: cDeclarations,
  keywords: C_KEYWORDS,
  executor: { image: 'cpp', memoryMb: 2048 },
};
