/**
 * A small seeded pseudo-random generator, so bootstrap intervals reproduce from the run's seed.
 */

/** A generator of floats uniform on [0, 1). */
export type Random = () => number;

/**
 * mulberry32: a 32-bit state generator, fast and good enough for resampling. The same seed
 * always yields the same sequence; only the low 32 bits of the seed matter.
 * @example
 * const rand = mulberry32(42);
 * const index = Math.floor(rand() * units.length);
 */
export function mulberry32(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A uniform integer in [0, bound). */
export function randomIndex(rand: Random, bound: number): number {
  return Math.floor(rand() * bound);
}
