/**
 * The provider of a run in the cloud: as locally (layers/app/shared/create-provider.ts), except that
 * `replay:` reads an s3:// object — a function cannot see the caller's files.
 */
import { HarnessError, InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/provider.ts';
import { replayProvider } from '#core/models/replay.ts';
import type { ProviderOptions } from '#providers/index.ts';
// The module, not the folder's index: the index also loads the Romanian lexicon's dictionaries.
import { parseS3Ref, s3ClientFromEnv } from '#sources/s3-source.ts';
import { S3BlobStore } from '#aws/s3-blob-store.ts';
import { createProvider } from '../shared/create-provider.ts';

export async function createCloudProvider(spec: string, options: ProviderOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<Provider> {
  const text = spec.trim();
  if (!text.startsWith('replay:')) return createProvider(text, options);
  const ref = text.slice('replay:'.length);
  if (!ref.startsWith('s3://')) throw new InputError('a replay file must be an s3:// object for the deployed pipeline', { field: 'model' });
  const { bucket, key } = parseS3Ref(ref);
  let body: string | undefined;
  try {
    body = await new S3BlobStore({ client: s3ClientFromEnv(env), bucket }).getText(key);
  } catch (error) {
    throw new HarnessError(`cannot read the replay file ${ref}`, { cause: error });
  }
  if (body === undefined) throw new InputError('no such replay object', { file: ref });
  return replayProvider(text, ref, body);
}
