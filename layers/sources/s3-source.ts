/**
 * `s3://bucket/key` sources through GetObject, streamed. The client honours
 * `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` (path-style addressing when set, as moto and
 * MinIO need) and `AWS_REGION`; credentials come from `opts.env` when it holds keys, else from
 * the SDK's default chain. The SDK is loaded on first use: a CLI that reads no S3 object never
 * pays for it.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HarnessError, InputError, PolyevalError } from '../core/errors.ts';
import { requireFileKind } from './format.ts';
import { sha256OfStream } from './hash.ts';
import { localRowSource } from './local-file.ts';
import { textRows } from './text-rows.ts';
import type { RowSource, SourceOptions, SourceRow } from './types.ts';

/** Bucket and key of an `s3://` ref. */
export interface S3Location {
  bucket: string;
  key: string;
}

/** Parses `s3://bucket/key`; a ref without bucket or key is an `InputError`. */
export function parseS3Ref(ref: string): S3Location {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(ref);
  if (!m?.[1] || !m[2]) throw new InputError('expected s3://<bucket>/<key>', { file: ref });
  return { bucket: m[1], key: m[2] };
}

/** An S3 client configured from `env` (endpoint override, region, static credentials). */
export async function s3ClientFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<S3Client> {
  const { S3Client } = await import('@aws-sdk/client-s3');
  const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1';
  const credentials =
    env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
      ? {
          accessKeyId: env.AWS_ACCESS_KEY_ID,
          secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
          ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}),
        }
      : undefined;
  return new S3Client({
    region,
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...(credentials ? { credentials } : {}),
  });
}

/**
 * A `RowSource` over an S3 object; text formats stream, parquet is fetched to a scratch file.
 * The object is checked (HeadObject) here, so a missing one fails when opened.
 */
export async function openS3Rows(ref: string, opts: SourceOptions): Promise<RowSource> {
  const loc = parseS3Ref(ref);
  const kind = requireFileKind(loc.key, ref);
  const client = opts.s3Client ?? (await s3ClientFromEnv(opts.env ?? process.env));
  const { HeadObjectCommand } = await import('@aws-sdk/client-s3');
  try {
    await client.send(new HeadObjectCommand({ Bucket: loc.bucket, Key: loc.key }));
  } catch (err) {
    throw s3Error(err, ref);
  }
  let hashed: Promise<string> | undefined;
  return {
    label: ref,
    format: kind.format,
    sha256: () => (hashed ??= getObject(client, loc, ref).then((body) => sha256OfStream(body))),
    rows: () => (kind.format === 'parquet' ? parquetFromS3(client, loc, ref, opts.cacheDir) : streamRows(client, loc, ref)),
  };
}

async function* streamRows(client: S3Client, loc: S3Location, ref: string): AsyncGenerator<SourceRow> {
  yield* textRows(await getObject(client, loc, ref), requireFileKind(loc.key, ref), ref);
}

async function* parquetFromS3(client: S3Client, loc: S3Location, ref: string, cacheDir: string): AsyncGenerator<SourceRow> {
  const scratch = join(cacheDir, 'scratch');
  await mkdir(scratch, { recursive: true });
  const name = loc.key.split('/').pop() ?? 'object.parquet';
  const file = join(scratch, `${randomUUID()}-${name}`);
  try {
    await pipeline(await getObject(client, loc, ref), createWriteStream(file));
    const source = await localRowSource(file, ref, { scratchDir: scratch, nameForFormat: loc.key });
    yield* source.rows();
  } finally {
    await rm(file, { force: true });
  }
}

async function getObject(client: S3Client, loc: S3Location, ref: string): Promise<Readable> {
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  try {
    const out = await client.send(new GetObjectCommand({ Bucket: loc.bucket, Key: loc.key }));
    if (!(out.Body instanceof Readable)) throw new HarnessError(`S3 GetObject for ${ref} returned no stream`);
    return out.Body;
  } catch (err) {
    throw s3Error(err, ref);
  }
}

function s3Error(err: unknown, ref: string): PolyevalError {
  if (err instanceof PolyevalError) return err;
  // An S3ServiceException carries its name and its HTTP status in $metadata.
  const name = (err as { name?: string }).name;
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) return new InputError('no such S3 object', { file: ref }, { cause: err });
  if (name === 'NoSuchBucket') return new InputError('no such S3 bucket', { file: ref }, { cause: err });
  if (name === 'AccessDenied' || status === 403) return new InputError('access denied to the S3 object', { file: ref }, { cause: err });
  return new HarnessError(`cannot read ${ref} from S3 (${(err as Error).message})`, { cause: err });
}
