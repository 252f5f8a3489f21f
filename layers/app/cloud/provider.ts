/**
 * The provider of a run in the cloud: as locally (layers/app/shared/create-provider.ts), except that
 * `replay:` reads an s3:// object — a function cannot see the caller's files.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { HarnessError, InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/provider.ts';
import { replayProvider } from '#core/models/replay.ts';
import type { ProviderOptions } from '#providers/index.ts';
// The module, not the folder's index: the index also loads the Romanian lexicon's dictionaries.
import { parseS3Ref, s3ClientFromEnv } from '#sources/s3-source.ts';
import { createProvider } from '../shared/create-provider.ts';

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
