/**
 * Facts about the container a cloud function runs in: where the bundled suites are, a
 * writable cache, the code version (a Lambda bundle has no git checkout), and the providers.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { HarnessError, InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/provider.ts';
import { replayProvider } from '#core/models/replay.ts';
import type { Manifest } from '#core/run/manifest.ts';
import type { ProviderOptions } from '#providers/index.ts';
import { parseS3Ref, s3ClientFromEnv } from '#sources/index.ts';
import { createProvider } from './create-provider.ts';
import { packageRoot } from './home.ts';
import { codeVersion, packageVersions } from './versions.ts';

/** Where `sample/` is: POLYEVAL_PACKAGE_ROOT, else the package root, else the bundle's folder (Lambda: /var/task). */
export function cloudPackageRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.POLYEVAL_PACKAGE_ROOT) return resolve(env.POLYEVAL_PACKAGE_ROOT);
  const root = packageRoot();
  if (existsSync(join(root, 'sample'))) return root;
  return env.LAMBDA_TASK_ROOT ?? process.cwd();
}

/** A writable cache: Lambda's only writable place is /tmp (POLYEVAL_CACHE may be read-only). */
export function writableCacheDir(): string {
  return join(tmpdir(), 'polyeval-cache');
}

/** The code version: from package.json and git where present, else POLYEVAL_VERSION / POLYEVAL_REVISION. */
export function cloudCodeVersion(root: string, env: NodeJS.ProcessEnv = process.env): Manifest['code'] {
  try {
    return codeVersion(root);
  } catch {
    return { version: env.POLYEVAL_VERSION ?? 'unknown', revision: env.POLYEVAL_REVISION ?? null, dirty: null };
  }
}

export { packageVersions };

/**
 * The provider of a run, in the cloud: as locally, except `replay:` reads an s3:// object
 * (the function cannot see the caller's files).
 */
export async function createCloudProvider(spec: string, options: ProviderOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<Provider> {
  const text = spec.trim();
  if (!text.startsWith('replay:')) return createProvider(text, options);
  const ref = text.slice('replay:'.length);
  if (!ref.startsWith('s3://')) throw new InputError('a replay file must be an s3:// object for the deployed pipeline', { field: 'model' });
  const { bucket, key } = parseS3Ref(ref);
  try {
    const out = await s3ClientFromEnv(env).send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return replayProvider(text, ref, (await out.Body?.transformToString('utf8')) ?? '');
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') throw new InputError('no such replay object', { file: ref });
    throw new HarnessError(`cannot read the replay file ${ref}`, { cause: error });
  }
}
