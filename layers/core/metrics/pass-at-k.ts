/**
 * The unbiased pass@k estimator (Chen et al., 2021) for one task.
 */

/**
 * Probability that at least one of `k` samples drawn without replacement from `n` samples,
 * `c` of them correct, is correct: 1 − C(n−c, k)/C(n, k).
 *
 * Computed as 1 − Π_{i=n−c+1..n} (1 − k/i), which never forms a binomial coefficient and so
 * neither overflows nor loses precision for large n.
 *
 * @returns the estimate in [0, 1], or `undefined` when n < k (the estimator is not defined).
 * @throws RangeError when the arguments are not integers with 0 ≤ c ≤ n and k ≥ 1.
 * @example
 * passAtK(10, 3, 1); // 0.3
 * passAtK(1, 1, 10); // undefined
 */
export function passAtK(n: number, c: number, k: number): number | undefined {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k)) {
    throw new RangeError(`passAtK needs integers, got n=${n}, c=${c}, k=${k}`);
  }
  if (k < 1 || c < 0 || c > n) {
    throw new RangeError(`passAtK needs k >= 1 and 0 <= c <= n, got n=${n}, c=${c}, k=${k}`);
  }
  if (n < k) return undefined;
  // Fewer wrong samples than k: every draw of k contains a correct one.
  if (n - c < k) return 1;
  let allWrong = 1;
  for (let i = n - c + 1; i <= n; i++) allWrong *= 1 - k / i;
  return 1 - allWrong;
}
