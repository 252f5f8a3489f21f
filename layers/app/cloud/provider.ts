/**
 * The provider of a run in the cloud: as locally (layers/app/shared/create-provider.ts), except that
 * a file a spec names (a replay file) is an s3:// object — a function cannot see the caller's files.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { HarnessError, InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/provider.ts';
import type { ProviderOptions } from '#providers/index.ts';
import { PROVIDER_REGISTRY } from '#providers/registry.ts';
// The module, not the folder's index: the index also loads the Romanian lexicon's dictionaries.
import { parseS3Ref, s3ClientFromEnv } from '#sources/s3-source.ts';
import { createProvider, unknownProvider } from '../shared/create-provider.ts';

export async function createCloudProvider(spec: string, options: ProviderOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<Provider> {
  const text = spec.trim();
  const found = PROVIDER_REGISTRY.find(text);
  if (!found) throw unknownProvider(text);
  found.kind.checkCloud?.(found.rest);
  return createProvider(text, options, async (ref) => {
    const { bucket, key } = parseS3Ref(ref);
    try {
      const out = await s3ClientFromEnv(env).send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return (await out.Body?.transformToString('utf8')) ?? '';
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') throw new InputError('no such object', { file: ref });
      throw new HarnessError(`cannot read ${ref}`, { cause: error });
    }
  });
}
