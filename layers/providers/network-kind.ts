/**
 * A provider reached over the network: its spec's rest parsed into a typed spec (an
 * InputError naming the spec when malformed) and opened with the resolved run options.
 * `create` is derived, so every network provider takes its options the same way.
 */
import { InputError } from '#core/errors.ts';
import type { ProviderKind } from '#core/models/index.ts';
import type { Provider } from '#core/models/index.ts';
import { resolveOptions, type ProviderOptions, type ResolvedOptions } from './options.ts';

/** A network provider's self-description. */
export interface NetworkProviderKind<S extends { scheme: string } = { scheme: string }> extends ProviderKind<ProviderOptions> {
  /** `rest` (after `<scheme>:`) as a typed spec; throws an InputError naming `spec`. */
  parse(spec: string, rest: string): S;
  /** The provider for a parsed spec (synchronous: no call is made). */
  open(spec: string, parsed: S, options: ResolvedOptions): Provider;
  create(rest: string, ctx: { spec: string; options: ProviderOptions }): Provider;
}

/** A network kind from its description, parser and opener. */
export function networkKind<S extends { scheme: string }>(kind: Omit<NetworkProviderKind<S>, 'create' | 'argument'>): NetworkProviderKind<S> {
  return { ...kind, argument: true, create: (rest, ctx) => kind.open(ctx.spec, kind.parse(ctx.spec, rest), resolveOptions(ctx.options)) };
}

/** The InputError of a malformed spec. */
export function badSpec(spec: string, reason: string): InputError {
  return new InputError(`provider spec ${JSON.stringify(spec)}: ${reason}`, { field: 'model' });
}

/** `baseUrl` when it is an http(s) URL; otherwise a spec error saying which. */
export function httpBaseUrl(spec: string, baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw badSpec(spec, `base URL ${JSON.stringify(baseUrl)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badSpec(spec, `base URL must be http(s), got ${url.protocol}`);
  return baseUrl;
}
