/**
 * The language registry: an explicit array, one entry per file of this folder.
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
