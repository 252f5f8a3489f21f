/** C++ (g++, gnu++17): RoCode's `cpp` and MXEval-format C++ files, completions kept as written. */
import { NATIVE_SPEC } from './native.ts';
import type { LanguageSpec } from './spec.ts';

/** C++'s spec. */
export const cppSpec: LanguageSpec = {
  ...NATIVE_SPEC,
  id: 'cpp',
  aliases: ['cpp', 'c++'],
  aliasPattern: /^(c\+\+|cpp|cxx|g\+\+)/,
  fenceTags: ['cpp', 'c++', 'cc', 'cxx', 'hpp', 'h++'],
};
