/**
 * Gold digits of graded judgements: the human mean on [0, 1] becomes a choice 1–5 by the
 * rule of the protocol (see {@link GoldRule}).
 */
import type { GoldRule } from './protocol.ts';

/** The five equal bins of [0, 1]: min(5, 1 + ⌊5·mean⌋) (`--gold equal-bins`). */
export function discretise(mean: number): number {
  return Math.min(5, 1 + Math.floor(5 * mean));
}

/**
 * Python 3's `round(x)` for a float: the nearest integer, ties to the even one, decided on
 * the exact double (so `round(0.5) = 0`, `round(1.5) = 2`, `round(2.5) = 2`).
 *
 * @example
 * pythonRound(5 * 0.5); // 2
 * pythonRound(5 * 0.7); // 4 (5 × 0.7 is exactly 3.5 in doubles)
 */
export function pythonRound(x: number): number {
  const floor = Math.floor(x);
  // Exact for every finite double: x and ⌊x⌋ are within a factor 2 of each other (or ⌊x⌋ = 0).
  const diff = x - floor;
  if (diff < 0.5) return floor;
  if (diff > 0.5) return floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}

/**
 * The ABRICOT authors' gold digit (`--gold authors`), also the CALAMITA harness's:
 * `min(4, round(5·mean)) + 1`, with Python's round on doubles (`5 * mean` computed in doubles
 * first, as Python does). Their task file (gpucce/lm-evaluation-harness 4d8bb2d6,
 * lm_eval/tasks/abricot/utils.py) sets the label to `round(5 * doc["abs_mean"])`, lowers 5 to
 * 4, and scores the choice at that index of ["1".."5"], i.e. the digit label + 1.
 */
export function calamitaGold(mean: number): number {
  return Math.min(4, pythonRound(5 * mean)) + 1;
}

/** The gold digit of `mean` under `rule`. */
export function goldDigit(rule: GoldRule, mean: number): number {
  switch (rule) {
    case 'equal-bins':
      return discretise(mean);
    case 'authors':
      return calamitaGold(mean);
    default: {
      const never: never = rule;
      throw new Error(`unknown gold rule ${String(never)}`);
    }
  }
}
