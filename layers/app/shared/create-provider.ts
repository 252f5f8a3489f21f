/**
 * `-m <provider>`: `reference`, `replay:<file.jsonl>`, or a network provider
 * (`bedrock:`, `sagemaker:`, `openai:`) from layers/providers.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError } from '#core/errors.ts';
import type { Provider } from '#core/models/provider.ts';
import { referenceProvider } from '#core/models/reference.ts';
import { replayProvider } from '#core/models/replay.ts';
import { createNetworkProvider, type ProviderOptions } from '#providers/index.ts';

export const PROVIDER_KINDS = [
  { kind: 'reference', usage: 'reference', description: "the task's canonical answer (validates a benchmark end to end; the default)" },
  { kind: 'replay', usage: 'replay:<file.jsonl>', description: 'recorded samples: {"task_id", "completion", "language"?, "sample"?} per line' },
  { kind: 'bedrock', usage: 'bedrock:<model-id>', description: 'Amazon Bedrock Converse API (no log-probabilities: ABRICOT runs in digit-parse mode)' },
  { kind: 'sagemaker', usage: 'sagemaker:<endpoint>#tgi|#openai', description: 'SageMaker endpoint with a TGI or OpenAI-style (vLLM/LMI) container' },
  { kind: 'openai', usage: 'openai:<base-url>#<model>', description: 'any OpenAI-compatible server (vLLM, TGI, Ollama, llama.cpp)' },
] as const;

export async function createProvider(spec: string, opts: ProviderOptions = {}): Promise<Provider> {
  const text = spec.trim();
  if (text === 'reference') return referenceProvider();
  if (text.startsWith('replay:')) {
    const path = text.slice('replay:'.length);
    if (!path) throw new InputError('replay: needs a file, e.g. replay:answers.jsonl', { field: 'model' });
    let body: string;
    try {
      body = await readFile(resolve(path), 'utf8');
    } catch (error) {
      throw new InputError(`cannot read replay file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { file: path });
    }
    return replayProvider(text, path, body);
  }
  const network = createNetworkProvider(text, opts);
  if (network) return network;
  throw new InputError(`unknown provider "${text}" (known: ${PROVIDER_KINDS.map((p) => p.usage).join(', ')})`, { field: 'model' });
}
