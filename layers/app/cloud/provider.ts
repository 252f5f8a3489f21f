/**
 * The provider of a run in the cloud: as locally (layers/app/shared/create-provider.ts), except that
 * a file a spec names (a replay file) is an s3:// object — a function cannot see the caller's files —,
 * and that a key goes only to its hosts (layers/providers/key-hosts.ts, `refuse`): the table's and
 * the deployment's PROVIDER_KEY_HOSTS (`-c providerKeyHosts`). The plan builds the provider too, so
 * a run naming another host is refused there, before any call.
 */
import { HarnessError, InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/index.ts';
import type { ProviderOptions } from '#providers/index.ts';
import { parseKeyHosts, type KeyHostRule } from '#providers/index.ts';
import { PROVIDER_REGISTRY } from '#providers/index.ts';
// The module, not the folder's index: the index also loads the Romanian lexicon's dictionaries.
import { parseS3Ref, s3ClientFromEnv } from '#sources/index.ts';
import { S3BlobStore } from '#aws/index.ts';
import { createProvider, unknownProvider } from '../shared/create-provider.ts';

export async function createCloudProvider(spec: string, options: ProviderOptions = {}, env: NodeJS.ProcessEnv = process.env): Promise<Provider> {
  const text = spec.trim();
  const found = PROVIDER_REGISTRY.find(text);
  if (!found) throw unknownProvider(text);
  found.kind.checkCloud?.(found.rest);
  return createProvider(text, { keyHosts: cloudKeyHosts(env), ...options }, async (ref) => {
    const { bucket, key } = parseS3Ref(ref);
    let body: string | undefined;
    try {
      body = await new S3BlobStore({ client: await s3ClientFromEnv(env), bucket }).getText(key);
    } catch (error) {
      throw new HarnessError(`cannot read ${ref}`, { cause: error });
    }
    if (body === undefined) throw new InputError('no such object', { file: ref });
    return body;
  });
}

/** The deployed functions' rule: keys go only to the table's hosts and PROVIDER_KEY_HOSTS'. @throws HarnessError on a malformed PROVIDER_KEY_HOSTS. */
export function cloudKeyHosts(env: NodeJS.ProcessEnv): KeyHostRule {
  try {
    return { mode: 'refuse', extra: parseKeyHosts(env.PROVIDER_KEY_HOSTS) };
  } catch (error) {
    throw new HarnessError(`PROVIDER_KEY_HOSTS: ${(error as Error).message}`, { cause: error });
  }
}
