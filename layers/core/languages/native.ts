/** What the gcc-built languages (C and C++) share in core. */
import { C_KEYWORDS, cDeclarations } from './identifiers.ts';
import type { LanguageSpec } from './spec.ts';

/** Lines that begin C or C++ code (an answer may mix the two). */
export const NATIVE_CODE_START =
  /^\s*(#\s*include|#\s*define|using\s|typedef\s|struct\s|int\s|long\s|void\s|char\s|double\s|float\s|unsigned\s|const\s|static\s|template\s*<|namespace\s|return\b|if\s*\(|for\s*\(|while\s*\()/;

/**
 * The part of a C or C++ spec the two share: their code-start lines, declarations and
 * keywords, completions kept as written (no stop sequences), and the gcc image (`cpp`).
 */
export const NATIVE_SPEC: Omit<LanguageSpec, 'id' | 'aliases' | 'aliasPattern' | 'fenceTags'> = {
  codeStart: NATIVE_CODE_START,
  mxevalPrefixes: [],
  stops: [],
  cleanCompletion: (code) => code,
  declarations: cDeclarations,
  keywords: C_KEYWORDS,
  executor: { image: 'cpp', memoryMb: 1769, samplesPerRunnerInvocation: 2.59 }, // from measured peaks: layers/app/cloud/function-memory.ts RUNNER_MEMORY
  // samples per invocation: `npm run bench cloud-scale -- --items 10000 --language cpp --detail` at generate's default batch of 12, 3,866 runner invocations (2026-12-07)
};
