/**
 * Python's `random.Random(seed)` as far as lm-eval's few-shot sampler uses it: the Mersenne
 * Twister MT19937 seeded from an integer, `getrandbits(k)` for k ≤ 32, `_randbelow` and
 * `sample(population, k)`. Written from the algorithms' published descriptions and checked
 * against CPython 3.11's outputs (test/unit/benchmarks/python-random.test.ts); needed so
 * `--shot-seed 1234` draws the same examples lm-eval draws with `fewshot_random_seed=1234`.
 *
 * Behaviour followed (CPython, Lib/random.py and Modules/_randommodule.c, 3.8–3.13):
 * - an int seed is taken as its absolute value, split into 32-bit words (least significant
 *   first, at least one) and fed to MT19937's `init_by_array`;
 * - `getrandbits(k)` for 0 < k ≤ 32 is one 32-bit output shifted right by 32 − k;
 * - `_randbelow(n)` draws `getrandbits(n.bit_length())` until the value is below n;
 * - `sample(population, k)` keeps a working copy (swapping the last unused element into the
 *   drawn slot) when the population is at most `21 + 4^⌈log₄(3k)⌉` (the 4^… term only for
 *   k > 5), else redraws indices already selected.
 */

const N = 624;
const M = 397;

export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  /** `random.Random(seed)` for a whole-number seed. */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) throw new Error(`a Python random seed must be a whole number, got ${seed}`);
    this.initByArray(wordsOf(Math.abs(seed)));
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ?? 0;
      mt[i] = (Math.imul(1812433253, prev ^ (prev >>> 30)) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ?? 0;
      mt[i] = (((mt[i] ?? 0) ^ Math.imul(prev ^ (prev >>> 30), 1664525)) >>> 0) + (key[j] ?? 0) + j;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1] ?? 0;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ?? 0;
      mt[i] = (((mt[i] ?? 0) ^ Math.imul(prev ^ (prev >>> 30), 1566083941)) >>> 0) - i;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1] ?? 0;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private twist(): void {
    const mt = this.mt;
    for (let kk = 0; kk < N; kk++) {
      const y = ((mt[kk] ?? 0) & 0x80000000) | ((mt[(kk + 1) % N] ?? 0) & 0x7fffffff);
      mt[kk] = (mt[(kk + M) % N] ?? 0) ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    }
    this.index = 0;
  }

  /** One 32-bit output (CPython's `genrand_uint32`). */
  uint32(): number {
    if (this.index >= N) this.twist();
    let y = this.mt[this.index++] ?? 0;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `getrandbits(k)` for 0 ≤ k ≤ 32. */
  getrandbits(k: number): number {
    if (!Number.isInteger(k) || k < 0 || k > 32) throw new Error(`getrandbits supports 0..32 bits here, got ${k}`);
    return k === 0 ? 0 : this.uint32() >>> (32 - k);
  }

  /** `_randbelow(n)`: uniform on [0, n), n ≥ 1. */
  randbelow(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > 0xffffffff) throw new Error(`randbelow needs 1 ≤ n < 2^32, got ${n}`);
    const k = 32 - Math.clz32(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `sample(range(n), k)`: k distinct indices of a population of n, in draw order. */
  sampleIndices(n: number, k: number): number[] {
    if (!Number.isInteger(k) || k < 0 || k > n) throw new Error(`sample larger than population or is negative (k=${k}, n=${n})`);
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    const result: number[] = [];
    if (n <= setsize) {
      const pool = Array.from({ length: n }, (_, i) => i);
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result.push(pool[j] ?? 0);
        pool[j] = pool[n - i - 1] ?? 0;
      }
      return result;
    }
    const selected = new Set<number>();
    for (let i = 0; i < k; i++) {
      let j = this.randbelow(n);
      while (selected.has(j)) j = this.randbelow(n);
      selected.add(j);
      result.push(j);
    }
    return result;
  }
}

/** A non-negative safe integer as 32-bit words, least significant first (at least one word). */
function wordsOf(value: number): number[] {
  const words: number[] = [];
  let rest = value;
  do {
    words.push(rest % 0x100000000);
    rest = Math.floor(rest / 0x100000000);
  } while (rest > 0);
  return words;
}
