/**
 * Kotlin in MXEval's format (Kotlin HumanEval, MBKP): the benchmark card's recipe — stop
 * where a brace closes at column 0, remove comments, drop a repeated signature, close the
 * function. A run's language version (datasets written against older Kotlin APIs) reaches
 * the Kotlin runtime as a toolchain option of each job.
 */
import { KT_KEYWORDS, kotlinDeclarations } from './identifiers.ts';
import { cleanKotlinCompletion, closeKotlinFunction } from './kotlin-lexical.ts';
import { BRACE_STOPS, type LanguageSpec } from './spec.ts';

/** Kotlin's spec. */
export const kotlinSpec: LanguageSpec = {
  id: 'kotlin',
  aliases: ['kotlin', 'kt'],
  fenceTags: ['kotlin', 'kt', 'kts'],
  codeStart: /^\s*(import\s|package\s|fun\s|val\s|var\s|class\s|object\s|data\s|return\b|if\s*\(|for\s*\(|while\s*\(|when\b|@)/,
  mxevalPrefixes: ['MBKP'],
  stops: BRACE_STOPS,
  cleanCompletion: (code) => closeKotlinFunction(cleanKotlinCompletion(code)),
  declarations: kotlinDeclarations,
  keywords: KT_KEYWORDS,
  // The warm compile server's JVM needs a heap beside the program's.
  executor: { image: 'kotlin', memoryMb: 2048, samplesPerRunnerInvocation: 3.14 }, // from measured peaks: layers/app/cloud/function-memory.ts RUNNER_MEMORY
  // samples per invocation: `npm run bench cloud-scale -- --items 10000 --language kotlin --detail` at generate's default batch of 12, 3,181 runner invocations (2026-12-07)
  toolchainOptions: (settings) => (settings.kotlin_language_version ? { languageVersion: settings.kotlin_language_version } : {}),
};
