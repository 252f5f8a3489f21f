/**
 * The runtime registry: an explicit array with one entry per language, each the runtime in
 * `<id>.ts` of this folder (its core spec is in layers/core/languages/, registered there in
 * `LANGUAGE_SPECS`; a test checks the two list the same ids).
 * @example
 * const runtime = LANGUAGE_RUNTIMES.find((r) => r.id === 'cpp');
 */
import type { LanguageRuntime } from '../runtime.ts';
import { cRuntime } from './c.ts';
import { cppRuntime } from './cpp.ts';
import { javaRuntime } from './java.ts';
import { javascriptRuntime } from './javascript.ts';
import { kotlinRuntime } from './kotlin.ts';
import { pythonRuntime } from './python.ts';

export const LANGUAGE_RUNTIMES: readonly LanguageRuntime[] = [pythonRuntime, cRuntime, cppRuntime, kotlinRuntime, javaRuntime, javascriptRuntime];
