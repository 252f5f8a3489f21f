/**
 * Which runs a request starts and what they are called — the same for `polyeval run` and for
 * POST /runs (and the nightly sweep): one run per language asked for, the `reference` model
 * (any provider answering with references) validating every language the benchmark has solutions in, ids `<benchmark>[-<language>]-<UTC
 * stamp>-<6 hex>`.
 */
import { randomBytes } from 'node:crypto';
import type { AnyBenchmark } from '#core/benchmarks/index.ts';
import type { RunSpec } from '#core/run/index.ts';
import type { Task } from '#core/types.ts';
import { languageIdOf } from '#core/languages/index.ts';
import { PROVIDER_REGISTRY } from '#providers/index.ts';

/**
 * `--language a,b` → one run each; a provider answering with references validates every
 * language with solutions (of `tasks` when they are loaded: a file with Python answers only
 * is one Python run); else the default (undefined).
 */
export function languagesFor(spec: RunSpec, benchmark: AnyBenchmark, tasks?: readonly Task[]): (string | undefined)[] {
  // Spelled as the user likes (`C++`, `Python3`): one id each, so every run of a language shares its board.
  if (spec.language)
    return [
      ...new Set(
        spec.language
          .split(',')
          .map((l) => l.trim())
          .filter(Boolean)
          .map((l) => languageIdOf(l) ?? l),
      ),
    ];
  if (PROVIDER_REGISTRY.find(spec.model.trim())?.kind.answersWithReference && benchmark.defaults.languages) {
    const all = [...benchmark.defaults.languages];
    const answered = tasks ? all.filter((l) => tasks.some((t) => benchmark.reference(t, l) !== undefined)) : all;
    return answered.length > 0 ? answered : all;
  }
  return [undefined];
}

/** The id's prefix: the benchmark, with the language when the request starts one run per language. */
export function runIdPrefix(benchmarkId: string, language: string | undefined, languages: readonly (string | undefined)[]): string {
  return language && languages.length > 1 ? `${benchmarkId}-${language}` : benchmarkId;
}

/** `<prefix>-<UTC stamp>-<suffix>`, e.g. `rocode-cpp-20260101T030000Z-a1b2c3`; sweeps use the prefix `sweep`. */
export function newRunId(prefix: string, now: Date, suffix: string = randomSuffix()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${prefix}-${stamp}-${suffix}`;
}

/** Six random hex digits: the default suffix of a run id. */
export function randomSuffix(): string {
  return randomBytes(3).toString('hex');
}
