/** C (gcc, gnu11): RoCode's `c` and MXEval-format C files; it runs in the gcc image with C++. */
import { NATIVE_SPEC } from './native.ts';
import type { LanguageSpec } from './spec.ts';

/** C's spec. */
export const cSpec: LanguageSpec = {
  ...NATIVE_SPEC,
  id: 'c',
  aliases: ['c'],
  aliasPattern: /^(gcc|c\d\d|gnuc)/,
  fenceTags: ['c', 'h'],
};
