/**
 * Parsing of network provider specs (DESIGN §8). Only the first ':' separates the scheme,
 * so Bedrock ids such as `us.anthropic.claude-3-5-haiku-20241022-v1:0` and URLs keep theirs.
 */
import { InputError } from '#core/errors.ts';

export type SageMakerFlavour = 'tgi' | 'openai';

export type NetworkSpec =
  | { scheme: 'bedrock'; modelId: string }
  | { scheme: 'sagemaker'; endpoint: string; flavour: SageMakerFlavour }
  | { scheme: 'openai'; baseUrl: string; model: string };

// SageMaker endpoint names: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}
const ENDPOINT_NAME = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;

/**
 * Parses `bedrock:<model-id>`, `sagemaker:<endpoint>[#tgi|#openai]` (default tgi) or
 * `openai:<base-url>#<model>`. Returns undefined for any other scheme; throws an InputError
 * naming the spec when the scheme is known but the rest is malformed.
 *
 * @example
 * parseNetworkSpec('openai:http://127.0.0.1:8000/v1#qwen2.5-7b')
 * // → { scheme: 'openai', baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen2.5-7b' }
 */
export function parseNetworkSpec(spec: string): NetworkSpec | undefined {
  const colon = spec.indexOf(':');
  if (colon < 0) return undefined;
  const scheme = spec.slice(0, colon);
  const rest = spec.slice(colon + 1);
  switch (scheme) {
    case 'bedrock':
      return parseBedrock(spec, rest);
    case 'sagemaker':
      return parseSageMaker(spec, rest);
    case 'openai':
      return parseOpenAi(spec, rest);
    default:
      return undefined;
  }
}

function bad(spec: string, reason: string): InputError {
  return new InputError(`provider spec ${JSON.stringify(spec)}: ${reason}`, { field: 'model' });
}

function parseBedrock(spec: string, modelId: string): NetworkSpec {
  if (modelId === '' || /\s/.test(modelId)) throw bad(spec, 'expected bedrock:<model-id>, e.g. bedrock:anthropic.claude-3-haiku-20240307-v1:0');
  return { scheme: 'bedrock', modelId };
}

function parseSageMaker(spec: string, rest: string): NetworkSpec {
  const hash = rest.indexOf('#');
  const endpoint = hash < 0 ? rest : rest.slice(0, hash);
  const flavour = hash < 0 ? 'tgi' : rest.slice(hash + 1);
  if (!ENDPOINT_NAME.test(endpoint)) throw bad(spec, 'expected sagemaker:<endpoint-name>[#tgi|#openai] with a valid endpoint name');
  if (flavour !== 'tgi' && flavour !== 'openai') throw bad(spec, `unknown payload flavour "#${flavour}"; expected #tgi or #openai`);
  return { scheme: 'sagemaker', endpoint, flavour };
}

function parseOpenAi(spec: string, rest: string): NetworkSpec {
  const hash = rest.lastIndexOf('#');
  if (hash < 0) throw bad(spec, 'missing "#<model>"; expected openai:<base-url>#<model>, e.g. openai:http://127.0.0.1:8000/v1#my-model');
  const baseUrl = rest.slice(0, hash).replace(/\/+$/, '');
  const model = rest.slice(hash + 1);
  if (model === '') throw bad(spec, 'empty model name after "#"');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw bad(spec, `base URL ${JSON.stringify(baseUrl)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad(spec, `base URL must be http(s), got ${url.protocol}`);
  return { scheme: 'openai', baseUrl, model };
}
