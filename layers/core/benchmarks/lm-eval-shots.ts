/**
 * Few-shot examples drawn as lm-eval's default `ContextSampler` draws them, for tasks whose
 * few-shot docs are the evaluated docs themselves (ABRICOT's task files set no training or
 * few-shot split, so lm-eval falls back to the validation docs it evaluates).
 *
 * What lm-eval does (EleutherAI/lm-evaluation-harness v0.4.4, and the forks that ran ABRICOT:
 * gpucce/lm-evaluation-harness 4d8bb2d6, CALAMITA-AILC/CALAMITA-harness 2f7e3230;
 * `lm_eval/api/samplers.py` `ContextSampler.get_context`/`sample`, `lm_eval/api/task.py`
 * `set_fewshot_seed`, `lm_eval/evaluator.py` `fewshot_random_seed=1234`):
 * - one `random.Random(seed)` per task, seeded once, then used for every evaluated doc in
 *   order, so the examples of the i-th doc depend on the i − 1 draws before it;
 * - each doc draws `rnd.sample(fewshot_docs, k + 1)` (one extra because the few-shot split
 *   equals the evaluated one: both are unset), drops the evaluated doc if drawn, and keeps the
 *   first k. Only that doc is excluded: an example may be another sentence about the same word.
 *
 * The draws here follow the order of `pool`: they equal lm-eval's when the run evaluates the
 * pool's docs in that order (all of them, or a prefix: `--limit`).
 */
import { PythonRandom } from './python-random.ts';

/** lm-eval's default `fewshot_random_seed` (evaluator.simple_evaluate, CLI `--seed` 4th value). */
export const LM_EVAL_FEWSHOT_SEED = 1234;

// Per pool array: per (seed, k), the examples' pool positions of every doc.
const cache = new WeakMap<readonly unknown[], Map<string, number[][]>>();

/**
 * The pool positions of the k examples lm-eval shows the doc at `position`.
 * @throws Error when the pool has fewer than k + 1 docs (Python's "sample larger than population").
 */
export function lmEvalShotPositions(pool: readonly unknown[], position: number, k: number, seed = LM_EVAL_FEWSHOT_SEED): number[] {
  if (k === 0) return [];
  if (pool.length < k + 1) {
    throw new Error(`${k} few-shot examples need at least ${k + 1} items of the same kind; the dataset has ${pool.length}`);
  }
  let byDraw = cache.get(pool);
  if (!byDraw) {
    byDraw = new Map();
    cache.set(pool, byDraw);
  }
  const key = `${seed}|${k}`;
  let draws = byDraw.get(key);
  if (!draws) {
    const rnd = new PythonRandom(seed);
    draws = pool.map((_, doc) =>
      rnd
        .sampleIndices(pool.length, k + 1)
        .filter((i) => i !== doc)
        .slice(0, k),
    );
    byDraw.set(key, draws);
  }
  return draws[position] ?? [];
}
