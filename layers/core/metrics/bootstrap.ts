/**
 * Seeded percentile bootstrap: a confidence interval for one statistic, and a paired
 * interval for the difference of one statistic between two runs on the same units.
 */
import { mulberry32, randomIndex } from './prng.ts';

/** A statistic over resampled units; `null` when it is undefined on that sample. */
export type Statistic<U> = (units: readonly U[]) => number | null;

/**
 * A statistic over a resample given as indices into the units (with repeats). Lets callers
 * with per-unit numbers sum them directly instead of building each resample.
 */
export type IndexedStatistic = (indices: Int32Array) => number | null;

export interface BootstrapOptions {
  /** Seeds the resampling; the same seed gives the same interval. */
  seed: number;
  /** Number of resamples (default 1000). */
  iterations?: number;
  /** Confidence level of the two-sided interval (default 0.95). */
  level?: number;
}

export interface BootstrapResult {
  /** The statistic on the units as given. */
  estimate: number | null;
  /** Percentile interval; null when the estimate or every resample is undefined. */
  low: number | null;
  high: number | null;
  /** Resamples on which the statistic was defined (those are the ones the interval uses). */
  resamples: number;
}

export interface PairedResult {
  /** The statistic of each run over the units present in both. */
  a: number | null;
  b: number | null;
  /** b − a, with its percentile interval. */
  diff: number | null;
  low: number | null;
  high: number | null;
  /**
   * Share of resampled differences whose sign is opposite to the observed one (zero counts as
   * opposite, to stay conservative); 1 when the observed difference is 0; null when undefined.
   */
  pShare: number | null;
  /** Units present in both runs. */
  units: number;
}

const DEFAULT_ITERATIONS = 1000;
const DEFAULT_LEVEL = 0.95;

/** The q-quantile of ascending values, interpolating linearly between order statistics. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) throw new RangeError('quantile of no values');
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

function checkOptions(iterations: number, level: number): void {
  if (!Number.isInteger(iterations) || iterations < 1) throw new RangeError(`iterations must be a positive integer, got ${iterations}`);
  if (!(level > 0 && level < 1)) throw new RangeError(`level must lie in (0, 1), got ${level}`);
}

function percentileInterval(values: number[], level: number): { low: number | null; high: number | null } {
  if (values.length === 0) return { low: null, high: null };
  values.sort((x, y) => x - y);
  const tail = (1 - level) / 2;
  return { low: quantile(values, tail), high: quantile(values, 1 - tail) };
}

// Draws `iterations` resamples of `count` indices; every bootstrap here draws through this one
// loop, so the generic and the indexed forms see the same resamples for the same seed.
function forEachResample(count: number, opts: BootstrapOptions, visit: (indices: Int32Array) => void): void {
  const iterations = opts.iterations ?? DEFAULT_ITERATIONS;
  const rand = mulberry32(opts.seed);
  const indices = new Int32Array(count);
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < count; i++) indices[i] = randomIndex(rand, count);
    visit(indices);
  }
}

function checked(opts: BootstrapOptions): number {
  const level = opts.level ?? DEFAULT_LEVEL;
  checkOptions(opts.iterations ?? DEFAULT_ITERATIONS, level);
  return level;
}

function gather<U>(units: readonly U[]): (indices: Int32Array) => U[] {
  const sample = new Array<U>(units.length);
  return (indices) => {
    for (let i = 0; i < indices.length; i++) sample[i] = units[indices[i] as number] as U;
    return sample;
  };
}

/**
 * {@link bootstrapCI} over `count` units that `statistic` reads by index; `estimate` is the
 * statistic on all units.
 */
export function bootstrapIndexed(count: number, estimate: number | null, statistic: IndexedStatistic, opts: BootstrapOptions): BootstrapResult {
  const level = checked(opts);
  if (estimate === null || count === 0) return { estimate, low: null, high: null, resamples: 0 };
  const values: number[] = [];
  forEachResample(count, opts, (indices) => {
    const value = statistic(indices);
    if (value !== null) values.push(value);
  });
  return { estimate, ...percentileInterval(values, level), resamples: values.length };
}

/**
 * Percentile bootstrap interval of `statistic`, resampling `units` with replacement (tasks for
 * code metrics, items for likert). Resamples on which the statistic is undefined are left out.
 * @example
 * const mean = (u: readonly number[]) => (u.length ? u.reduce((s, x) => s + x, 0) / u.length : null);
 * bootstrapCI([0, 1, 1, 0.5], mean, { seed: 7 }); // { estimate: 0.625, low: …, high: …, resamples: 1000 }
 */
export function bootstrapCI<U>(units: readonly U[], statistic: Statistic<U>, opts: BootstrapOptions): BootstrapResult {
  checked(opts);
  const pick = gather(units);
  return bootstrapIndexed(units.length, statistic(units), (indices) => statistic(pick(indices)), opts);
}

/** Keys present in both maps, sorted: a result must not depend on the order records were read in. */
export function commonKeys(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): string[] {
  return [...a.keys()].filter((k) => b.has(k)).sort();
}

/**
 * {@link pairedBootstrap} over `count` matched units that `statA`/`statB` read by index.
 */
export function pairedBootstrapIndexed(count: number, statA: IndexedStatistic, statB: IndexedStatistic, opts: BootstrapOptions): PairedResult {
  const level = checked(opts);
  const all = Int32Array.from({ length: count }, (_, i) => i);
  const sa = statA(all);
  const sb = statB(all);
  if (count === 0 || sa === null || sb === null) {
    return { a: sa, b: sb, diff: null, low: null, high: null, pShare: null, units: count };
  }
  const diff = sb - sa;
  const diffs: number[] = [];
  let opposite = 0;
  forEachResample(count, opts, (indices) => {
    const va = statA(indices);
    const vb = statB(indices);
    if (va === null || vb === null) return;
    const d = vb - va;
    diffs.push(d);
    if ((diff > 0 && d <= 0) || (diff < 0 && d >= 0)) opposite++;
  });
  const pShare = diffs.length === 0 ? null : diff === 0 ? 1 : opposite / diffs.length;
  return { a: sa, b: sb, diff, ...percentileInterval(diffs, level), pShare, units: count };
}

/**
 * Paired bootstrap of the difference b − a of one statistic between two runs. Units are
 * matched by key and only keys present in both runs take part; each resample draws the same
 * keys for both runs, so per-unit difficulty cancels out.
 * @example
 * pairedBootstrap(unitsOfRunA, unitsOfRunB, accuracyOf, { seed: 1 }); // { diff: 0.12, low: 0.05, … }
 */
export function pairedBootstrap<U>(a: ReadonlyMap<string, U>, b: ReadonlyMap<string, U>, statistic: Statistic<U>, opts: BootstrapOptions): PairedResult {
  checked(opts);
  const keys = commonKeys(a, b);
  const pickA = gather(keys.map((k) => a.get(k) as U));
  const pickB = gather(keys.map((k) => b.get(k) as U));
  return pairedBootstrapIndexed(
    keys.length,
    (i) => statistic(pickA(i)),
    (i) => statistic(pickB(i)),
    opts,
  );
}
