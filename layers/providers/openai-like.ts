/**
 * A hosted API that speaks OpenAI's chat wire format at its own base URL with its own key:
 * `<scheme>:<model>`, or `<scheme>:<base-url>#<model>` for another server speaking the same
 * API (a proxy, a test's loopback fake). Such a provider is one file that calls
 * {@link openAiLikeKind} with its scheme, base URL, key variable and wire hooks, plus table
 * rows: its key's hosts (key-hosts.ts `PROVIDER_KEY_HOSTS`), its models' capability rules
 * (model-capabilities.json) and, where the vendor publishes them, its prices (prices.json).
 *
 * @example
 * export const mistral = openAiLikeKind({ scheme: 'mistral', name: "Mistral's API", baseUrl: 'https://api.mistral.ai/v1', keyEnv: 'MISTRAL_API_KEY', … });
 */
import { InputError } from '#core/errors.ts';
import { badSpec, httpBaseUrl, networkKind, type NetworkProviderKind } from './network-kind.ts';
import { OpenAiProvider, type WireHooks } from './openai.ts';
import { boundKey } from './options.ts';

/** What a hosted OpenAI-like API is. */
export interface OpenAiLikeApi<Scheme extends string> {
  scheme: Scheme;
  /** Who it is, for help and error texts ("Mistral's API"). */
  name: string;
  /** The `polyeval list providers` line (default: the name, the wire format and the key variable). */
  description?: string;
  /** The API's base URL, without the trailing `/chat/completions`. */
  baseUrl: string;
  /** The environment variable its key is read from (its hosts are a row of key-hosts.ts). */
  keyEnv: string;
  /** Where a user gets a key, for the error when the variable is unset. */
  keyFrom: string;
  /** The header the key travels in (default `Authorization: Bearer <key>`). */
  keyHeader?: (key: string) => Record<string, string>;
  /** An example model id, for help and spec errors. */
  exampleModel: string;
  /** The model id as the API and the tables name it, from what the spec gives (Gemini drops a `models/` prefix). */
  modelId?: (given: string) => string;
  /** Request fields the API names otherwise or adds. */
  wire?: WireHooks;
  /** Whether the shipped price table's ids are its model ids (default true). */
  tablePriced?: boolean;
}

export interface OpenAiLikeSpec<Scheme extends string> {
  scheme: Scheme;
  baseUrl: string;
  model: string;
}

const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

/** The registry kind of a hosted OpenAI-like API. */
export function openAiLikeKind<Scheme extends string>(api: OpenAiLikeApi<Scheme>): NetworkProviderKind<OpenAiLikeSpec<Scheme>> {
  const { scheme } = api;
  return networkKind<OpenAiLikeSpec<Scheme>>({
    scheme,
    usage: `${scheme}:[<base-url>#]<model>`,
    description: api.description ?? `${api.name} (OpenAI-compatible chat completions); key from ${api.keyEnv}`,
    billed: true,
    tablePriced: api.tablePriced ?? true,
    answersWithReference: false,
    options: ['api-key-env'],
    iam: [],
    parse(spec, rest) {
      const hash = rest.lastIndexOf('#');
      const given = rest.slice(hash + 1);
      const model = api.modelId ? api.modelId(given) : given;
      if (model === '') throw badSpec(spec, `empty model name; expected ${scheme}:<model>, e.g. ${scheme}:${api.exampleModel}`);
      if (hash < 0) return { scheme, baseUrl: api.baseUrl, model };
      return { scheme, baseUrl: httpBaseUrl(spec, rest.slice(0, hash).replace(/\/+$/, '')), model };
    },
    open(spec, parsed, options) {
      // --api-key-env names the variable; its default (OPENAI_API_KEY) stands for "not given" here.
      const keyEnv = options.apiKeyEnv === 'OPENAI_API_KEY' ? api.keyEnv : options.apiKeyEnv;
      const key = boundKey(options, keyEnv, parsed.baseUrl);
      if (key.value === undefined || key.value === '') {
        throw new InputError(`environment variable ${keyEnv} is not set: ${api.name} needs ${api.keyFrom} (or name another variable with --api-key-env)`, {
          field: 'apiKeyEnv',
        });
      }
      const { baseUrl, model } = parsed;
      return new OpenAiProvider(spec, baseUrl, model, options, {
        kind: scheme,
        url: (path) => `${baseUrl}${path}`,
        headers: {},
        key: { bound: key, header: api.keyHeader ?? bearer },
        ...(api.wire ? { wire: api.wire } : {}),
      });
    },
  });
}
