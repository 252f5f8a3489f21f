/**
 * `azure:<endpoint>#<deployment>[@<api-version>]`: Azure OpenAI, the OpenAI wire format at
 * Azure's URLs with Azure's key header.
 *
 * - Without `@<api-version>`: the v1 API (GA since August 2025, Microsoft Learn "Azure OpenAI
 *   API version lifecycle"): `<endpoint>/openai/v1/chat/completions`, the deployment named in
 *   the body's `model`, no `api-version` parameter.
 * - With it: the dated data-plane route, `<endpoint>/openai/deployments/<deployment>/chat/
 *   completions?api-version=<v>` (Azure OpenAI REST reference, "Chat completions").
 *
 * Both take the key in the `api-key` header (from AZURE_OPENAI_API_KEY, or --api-key-env).
 * Likert scoring comes from the same capability check as `openai:`: Azure's chat models
 * return `logprobs` with up to 20 `top_logprobs`, so ABRICOT runs in next-token mode; no
 * chat deployment echoes a prompt with its log-probabilities (the capabilities table says
 * chat-only), and reasoning deployments fall back to digit-parse.
 */
import { InputError } from '#core/errors.ts';
import { badSpec, networkKind } from './network-kind.ts';
import { OpenAiProvider } from './openai.ts';
import { boundKey } from './options.ts';

const DEFAULT_KEY_ENV = 'AZURE_OPENAI_API_KEY';

export interface AzureSpec {
  scheme: 'azure';
  endpoint: string;
  deployment: string;
  /** The dated API version of the deployment route; undefined: the v1 route. */
  apiVersion?: string;
}

/** `-m azure:https://<resource>.openai.azure.com#<deployment>[@2024-10-21]`. */
export const azure = networkKind<AzureSpec>({
  scheme: 'azure',
  usage: 'azure:<endpoint>#<deployment>[@<api-version>]',
  description: 'Azure OpenAI (v1 API, or the deployment route of a dated api-version); key from AZURE_OPENAI_API_KEY',
  billed: true,
  answersWithReference: false,
  options: ['api-key-env'],
  iam: [],
  parse(spec, rest) {
    const hash = rest.lastIndexOf('#');
    if (hash < 0)
      throw badSpec(spec, 'missing "#<deployment>"; expected azure:<endpoint>#<deployment>, e.g. azure:https://my-resource.openai.azure.com#gpt-4o-mini');
    // The resource endpoint, also when pasted as the v1 base URL the portal shows (…/openai/v1/).
    const endpoint = rest
      .slice(0, hash)
      .replace(/\/+$/, '')
      .replace(/\/openai(\/v1)?$/i, '');
    const [deployment = '', apiVersion, ...extra] = rest.slice(hash + 1).split('@');
    if (deployment === '') throw badSpec(spec, 'empty deployment name after "#"');
    if (!/^[A-Za-z0-9._-]+$/.test(deployment))
      throw badSpec(spec, `deployment name ${JSON.stringify(deployment)} may hold letters, digits, ".", "_" and "-" only`);
    if (extra.length > 0 || (apiVersion !== undefined && !/^\d{4}-\d{2}-\d{2}(-preview)?$/.test(apiVersion))) {
      throw badSpec(
        spec,
        `api-version after "@" must look like 2024-10-21 or 2025-04-01-preview, got ${JSON.stringify(rest.slice(hash + 1 + deployment.length + 1))}`,
      );
    }
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw badSpec(spec, `endpoint ${JSON.stringify(endpoint)} is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badSpec(spec, `endpoint must be http(s), got ${url.protocol}`);
    return { scheme: 'azure', endpoint, deployment, ...(apiVersion !== undefined ? { apiVersion } : {}) };
  },
  open(spec, parsed, options) {
    // --api-key-env names the variable; its default (OPENAI_API_KEY) stands for "not given" here.
    const keyEnv = options.apiKeyEnv === 'OPENAI_API_KEY' ? DEFAULT_KEY_ENV : options.apiKeyEnv;
    const key = boundKey(options, keyEnv, parsed.endpoint);
    if (key.value === undefined || key.value === '') {
      throw new InputError(`environment variable ${keyEnv} is not set: Azure OpenAI needs the resource's key (or name another variable with --api-key-env)`, {
        field: 'apiKeyEnv',
      });
    }
    const { endpoint, deployment, apiVersion } = parsed;
    const url =
      apiVersion === undefined
        ? (path: string) => `${endpoint}/openai/v1${path}`
        : (path: string) => `${endpoint}/openai/deployments/${encodeURIComponent(deployment)}${path}?api-version=${encodeURIComponent(apiVersion)}`;
    return new OpenAiProvider(spec, `${endpoint}/openai`, deployment, options, {
      kind: 'azure',
      url,
      headers: {},
      key: { bound: key, header: (value) => ({ 'api-key': value }) },
    });
  },
});
