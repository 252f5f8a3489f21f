/**
 * BlobStore on Amazon S3 (DESIGN §4, §5): the same keys as the local store, under an
 * optional prefix of one bucket. S3 PUTs are atomic and overwrite, which is exactly the
 * port's contract, so this adapter only maps primitives and errors.
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobStore } from '../core/ports.ts';
import { HarnessError } from '../core/errors.ts';
import { awsErrorName } from './aws-errors.ts';

export interface S3BlobStoreOptions {
  client: S3Client;
  bucket: string;
  /** Key prefix inside the bucket (e.g. `polyeval`); a trailing `/` is added when missing. */
  prefix?: string;
  /** Keys per ListObjectsV2 page (S3's default and maximum is 1000). */
  listPageSize?: number;
}

const CONTENT_TYPES: readonly [string, string][] = [
  ['.json', 'application/json'],
  ['.jsonl', 'application/x-ndjson'],
  ['.gz', 'application/gzip'],
  ['.parquet', 'application/vnd.apache.parquet'],
  ['.html', 'text/html; charset=utf-8'],
  ['.csv', 'text/csv; charset=utf-8'],
  ['.txt', 'text/plain; charset=utf-8'],
];

/**
 * S3-backed {@link BlobStore}.
 * @example
 * const store = new S3BlobStore({ client: new S3Client({}), bucket: 'polyeval-results' });
 * await store.put('runs/r1/manifest.json', JSON.stringify(manifest));
 */
export class S3BlobStore implements BlobStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;
  readonly #listPageSize: number | undefined;

  constructor(options: S3BlobStoreOptions) {
    this.#client = options.client;
    this.#listPageSize = options.listPageSize;
    this.#bucket = options.bucket;
    const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.#prefix = prefix === '' ? '' : `${prefix}/`;
  }

  async put(key: string, body: string | Uint8Array, contentType?: string): Promise<void> {
    await this.#call('put', key, () =>
      this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: this.#key(key),
          Body: body,
          ContentType: contentType ?? guessContentType(key),
        }),
      ),
    );
  }

  /**
   * A conditional PUT with `If-None-Match: *`: S3 answers 412 PreconditionFailed when the key
   * exists (false: nothing changed). A 409 ConditionalRequestConflict means only that a
   * conflicting operation on the key ran meanwhile, which may have failed or been a delete, and
   * AWS says to retry ("How to prevent object overwrites with conditional writes", Amazon S3 user
   * guide; the SDK's PutObjectRequest.IfNoneMatch, @aws-sdk/client-s3 3.1175.0): it is thrown,
   * for the caller to try again (the toolchain recorder does with a later item), never taken
   * for "the key exists". moto_server answers the 412 (getmoto/moto 5.2.1, moto/s3/responses.py
   * `put_object`: `if_none_match == "*"` and the key exists → PreconditionFailed) and never 409.
   */
  async putIfAbsent(key: string, body: string | Uint8Array, contentType?: string): Promise<boolean> {
    try {
      await this.#client.send(
        new PutObjectCommand({ Bucket: this.#bucket, Key: this.#key(key), Body: body, ContentType: contentType ?? guessContentType(key), IfNoneMatch: '*' }),
      );
      return true;
    } catch (error) {
      if (awsErrorName(error) === 'PreconditionFailed') return false;
      throw this.#fault('conditional put', key, error);
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      const out = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
      if (out.Body === undefined) return new Uint8Array();
      return await out.Body.transformToByteArray();
    } catch (error) {
      if (awsErrorName(error) === 'NoSuchKey') return undefined;
      throw this.#fault('get', key, error);
    }
  }

  async getText(key: string): Promise<string | undefined> {
    const bytes = await this.get(key);
    return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }));
      return true;
    } catch (error) {
      const name = awsErrorName(error);
      if (name === 'NotFound' || name === 'NoSuchKey') return false;
      throw this.#fault('head', key, error);
    }
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.#call('list', prefix, () =>
        this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: this.#key(prefix), ContinuationToken: token, MaxKeys: this.#listPageSize })),
      );
      for (const object of page.Contents ?? []) {
        if (object.Key !== undefined) keys.push(object.Key.slice(this.#prefix.length));
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    // S3 orders by UTF-8 bytes; sort by JS string order so both adapters agree exactly.
    return keys.sort();
  }

  async delete(key: string): Promise<void> {
    await this.#call('delete', key, () => this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) })));
  }

  /**
   * A URL anyone holding it can GET `key` with for `expiresInSeconds` (SigV4 query
   * signing): what lets a caller download an object larger than a Lambda response can carry
   * (6 MB). It reads with the signer's own permissions on that one key, and lasts no longer
   * than the signer's session (https://docs.aws.amazon.com/AmazonS3/latest/userguide/ShareObjectPreSignedURL.html).
   * No request is made: a missing key is only seen when the URL is used.
   */
  presignedGetUrl(key: string, expiresInSeconds: number): Promise<string> {
    return getSignedUrl(this.#client, new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key(key) }), { expiresIn: expiresInSeconds });
  }

  locate(key: string): string {
    return `s3://${this.#bucket}/${this.#key(key)}`;
  }

  #key(key: string): string {
    return this.#prefix + key;
  }

  async #call<R>(operation: string, key: string, send: () => Promise<R>): Promise<R> {
    try {
      return await send();
    } catch (error) {
      throw this.#fault(operation, key, error);
    }
  }

  #fault(operation: string, key: string, cause: unknown): HarnessError {
    return new HarnessError(`S3 ${operation} failed for ${this.locate(key)}: ${awsErrorName(cause)}`, { cause });
  }
}

/** A content type from the key's extension (`.json.gz` is gzip), else octet-stream. */
export function guessContentType(key: string): string {
  const lower = key.toLowerCase();
  for (const [extension, type] of CONTENT_TYPES) {
    if (lower.endsWith(extension)) return type;
  }
  return 'application/octet-stream';
}
