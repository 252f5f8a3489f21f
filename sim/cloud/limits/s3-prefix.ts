/**
 * S3 request rates: "at least 3,500 PUT/COPY/POST/DELETE or 5,500 GET/HEAD requests per
 * second per partitioned Amazon S3 prefix"; above, S3 answers 503 Slow Down while it scales.
 * The simulation takes a key's prefix to be everything up to its last `/`.
 * Page: "Best practices design patterns: optimizing Amazon S3 performance",
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/optimizing-performance.html
 */

import { PerSecondCounts } from './per-second.ts';

export const S3_PUT_PER_PREFIX_S = 3500;
export const S3_GET_PER_PREFIX_S = 5500;

export function prefixOf(key: string): string {
  const slash = key.lastIndexOf('/');
  return slash < 0 ? '' : key.slice(0, slash + 1);
}

export class S3PrefixRates {
  /** Per prefix and second, the requests taken (requests arrive out of time order: per-second.ts). */
  readonly #counts = new PerSecondCounts<'put' | 'get'>();
  slowDowns = 0;

  /** Counts one request; throws SlowDown when the prefix's second is full. */
  request(key: string, kind: 'put' | 'get', nowMs: number): void {
    const prefix = prefixOf(key);
    const limit = kind === 'put' ? S3_PUT_PER_PREFIX_S : S3_GET_PER_PREFIX_S;
    if (this.#counts.used(prefix, kind, nowMs) >= limit) {
      this.slowDowns += 1;
      throw Object.assign(new Error(`503 Slow Down: prefix ${prefix} is over ${limit} ${kind} requests in second ${Math.floor(nowMs / 1000)}`), {
        name: 'SlowDown',
      });
    }
    this.#counts.add(prefix, kind, 1, nowMs);
  }
}
