/**
 * S3 in memory behind the BlobStore port, with S3's per-prefix request rates enforced
 * (limits/s3-prefix.ts): a 503 Slow Down is retried as the SDK retries it (3 attempts, in
 * virtual time), then it is the stage's HarnessError, as S3BlobStore reports it. Each request
 * takes a few virtual milliseconds. Bodies are kept deflated (a run's item documents are most
 * of what the simulation holds: ~2 KB of JSON each, a few hundred bytes deflated), and come
 * back byte for byte.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { HarnessError } from '#core/errors.ts';
import type { BlobStore } from '#core/ports.ts';
import type { S3PrefixRates } from './limits/s3-prefix.ts';
import type { VirtualTime } from './virtual-time.ts';

const REQUEST_MS = { put: 20, get: 10 } as const;
const SDK_ATTEMPTS = 3;

export class SimStore implements BlobStore {
  /** Each body deflated, and whether it was put as text. */
  readonly #objects = new Map<string, { deflated: Buffer; text: boolean }>();
  requests = { put: 0, get: 0, list: 0 };
  /** GETs (and HEADs) by what they read ({@link keyPrefix}): who makes the run's S3 GETs per item (issue 35). */
  readonly getsByPrefix: Record<string, number> = {};

  constructor(
    private readonly time: VirtualTime,
    private readonly rates: S3PrefixRates,
    private readonly random: () => number,
  ) {}

  async put(key: string, body: string | Uint8Array): Promise<void> {
    this.#request(key, 'put');
    this.time.assertAlive(`S3 put ${key}`);
    this.#objects.set(key, { deflated: deflateRawSync(typeof body === 'string' ? Buffer.from(body, 'utf8') : body), text: typeof body === 'string' });
    return Promise.resolve();
  }

  /** A conditional PUT (S3BlobStore.putIfAbsent): one PUT request whether or not it creates the object. */
  async putIfAbsent(key: string, body: string | Uint8Array): Promise<boolean> {
    this.#request(key, 'put');
    this.time.assertAlive(`S3 put ${key}`);
    if (this.#objects.has(key)) return Promise.resolve(false);
    this.#objects.set(key, { deflated: deflateRawSync(typeof body === 'string' ? Buffer.from(body, 'utf8') : body), text: typeof body === 'string' });
    return Promise.resolve(true);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    this.#request(key, 'get');
    const body = this.#objects.get(key);
    return Promise.resolve(body === undefined ? undefined : new Uint8Array(inflateRawSync(body.deflated)));
  }

  async getText(key: string): Promise<string | undefined> {
    this.#request(key, 'get');
    const body = this.#objects.get(key);
    return Promise.resolve(body === undefined ? undefined : inflateRawSync(body.deflated).toString('utf8'));
  }

  /** Bytes held (deflated), for the simulation's own memory figures. */
  get heldBytes(): number {
    let bytes = 0;
    for (const { deflated } of this.#objects.values()) bytes += deflated.byteLength;
    return bytes;
  }

  exists(key: string): Promise<boolean> {
    this.#request(key, 'get');
    return Promise.resolve(this.#objects.has(key));
  }

  list(prefix: string): Promise<string[]> {
    this.requests.list += 1;
    this.time.spend(REQUEST_MS.get);
    return Promise.resolve([...this.#objects.keys()].filter((k) => k.startsWith(prefix)).sort());
  }

  delete(key: string): Promise<void> {
    this.#request(key, 'put');
    this.time.assertAlive(`S3 delete ${key}`);
    this.#objects.delete(key);
    return Promise.resolve();
  }

  locate(key: string): string {
    return `s3://polyeval-sim/${key}`;
  }

  #request(key: string, kind: 'put' | 'get'): void {
    this.requests[kind] += 1;
    if (kind === 'get') {
      const prefix = keyPrefix(key);
      this.getsByPrefix[prefix] = (this.getsByPrefix[prefix] ?? 0) + 1;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        this.rates.request(key, kind, this.time.now());
        this.time.spend(REQUEST_MS[kind]);
        return;
      } catch (error) {
        if (attempt >= SDK_ATTEMPTS) throw new HarnessError(`S3 ${kind} ${key} failed: ${(error as Error).message}`, { cause: error });
        this.time.spend(this.random() * 100 * 2 ** attempt);
      }
    }
  }
}

/**
 * A key's kind, its run id (and any item path) written `*`: an item document
 * (`runs/<run>/items/<task>/<sample>.json`) counts under "runs/STAR/items/", the manifest under
 * "runs/STAR/manifest.json" (STAR standing for `*`); any other key under its first segment and `/`.
 */
export function keyPrefix(key: string): string {
  const parts = key.split('/');
  if (parts[0] === 'runs' && parts.length >= 3) return parts.length === 3 ? `runs/*/${parts[2]}` : `runs/*/${parts[2]}/`;
  return parts.length > 1 ? `${parts[0]}/` : key;
}
