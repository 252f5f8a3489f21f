/**
 * `-m <provider>`: any kind of the provider registry (layers/providers/registry.ts) —
 * `reference`, `replay:<file.jsonl>`, the network providers.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/index.ts';
import type { ProviderOptions } from '#providers/index.ts';
import { PROVIDER_REGISTRY } from '#providers/index.ts';

/** The providers `-m` takes, as `polyeval list providers` shows them. */
export const PROVIDER_KINDS = PROVIDER_REGISTRY.kinds.map((k) => ({ kind: k.scheme, usage: k.usage, description: k.description }));

/** `-m`'s help: every provider's spec form (`cloud`: as the deployed pipeline takes them). */
export function providerUsages(cloud = false): string {
  return PROVIDER_REGISTRY.kinds.map((k) => (cloud ? (k.cloudUsage ?? k.usage) : k.usage)).join(' | ');
}

/** Reads a file a local spec names (a path relative to the working directory). */
async function readLocal(path: string): Promise<string> {
  try {
    return await readFile(resolve(path), 'utf8');
  } catch (error) {
    throw new InputError(`cannot read the provider's file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { file: path });
  }
}

/** The InputError of a spec no provider takes. */
export function unknownProvider(text: string): InputError {
  return new InputError(`unknown provider "${text}" (known: ${PROVIDER_KINDS.map((p) => p.usage).join(', ')})`, { field: 'model' });
}

export async function createProvider(spec: string, opts: ProviderOptions = {}, readText: (path: string) => Promise<string> = readLocal): Promise<Provider> {
  const text = spec.trim();
  const found = PROVIDER_REGISTRY.find(text);
  if (!found) throw unknownProvider(text);
  return found.kind.create(found.rest, { spec: text, options: opts, readText });
}
