import { describe, expect, it } from 'vitest';
import { createNetworkProvider } from '#providers/index.ts';
import type { Provider } from '#core/models/provider.ts';
import { startBedrockServer, type BedrockServer } from '../../fakes/wire-servers/index.ts';
import { chatRequest, useFakeAwsEnv, useProviderSuite } from './harness.ts';

const cleanups = useProviderSuite();

async function serve(models?: string[]): Promise<BedrockServer> {
  const server = await startBedrockServer({ ...(models ? { models } : {}), answer: (prompt) => `eco: ${prompt.length}` });
  cleanups.push(() => server.close());
  return server;
}

function provider(spec: string, endpointUrl?: string): Provider {
  const p = createNetworkProvider(spec, endpointUrl ? { endpointUrl } : {});
  if (!p) throw new Error('no provider');
  cleanups.push(async () => p.close?.());
  return p;
}

describe('bedrock provider', () => {
  it('sends system, messages and inferenceConfig in the Converse shape', async () => {
    const server = await serve();
    const p = provider('bedrock:meta.llama3-1-8b-instruct-v1:0', server.url);

    await p.generate(chatRequest({ params: { temperature: 0.2, topP: 0.9, maxTokens: 128, stop: ['\n\n'] } }));

    expect(server.requests[0]?.body).toEqual({
      system: [{ text: 'Sei un assistente preciso.' }],
      messages: [{ role: 'user', content: [{ text: 'Quanto fa due più due?' }] }],
      inferenceConfig: { maxTokens: 128, temperature: 0.2, topP: 0.9, stopSequences: ['\n\n'] },
    });
  });

  it('passes a cross-region inference-profile id through unchanged', async () => {
    const id = 'us.anthropic.claude-3-5-haiku-20241022-v1:0';
    const server = await serve([id]);
    const p = provider(`bedrock:${id}`, server.url);

    const g = await p.generate(chatRequest());

    expect(p.model).toBe(id);
    expect(server.modelIds()).toEqual([id]);
    expect(g.text).toBe(`eco: ${'Sei un assistente preciso.\n\nQuanto fa due più due?'.length}`);
  });

  it('reaches the endpoint named by AWS_ENDPOINT_URL_BEDROCK_RUNTIME without an explicit override', async () => {
    const server = await serve();
    const restore = useFakeAwsEnv({ AWS_ENDPOINT_URL_BEDROCK_RUNTIME: server.url });
    cleanups.push(async () => restore());
    const p = provider('bedrock:amazon.nova-micro-v1:0');

    const g = await p.generate(chatRequest());

    expect(g.attempts).toBe(1);
    expect(server.modelIds()).toEqual(['amazon.nova-micro-v1:0']);
    expect(String(server.requests[0]?.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=test\/\d{8}\/us-east-1\/bedrock\//);
  });

  it('fails fast with the service message for an unknown model', async () => {
    const server = await serve(['amazon.nova-lite-v1:0']);
    const p = provider('bedrock:amazon.nova-pro-v1:0', server.url);

    await expect(p.generate(chatRequest())).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('ResourceNotFoundException'),
    });
    expect(server.requests).toHaveLength(1);
  });

  it('offers no choice scoring', async () => {
    const p = provider('bedrock:amazon.nova-micro-v1:0', 'http://127.0.0.1:9');

    expect(p.scoreChoices).toBeUndefined();
  });
});
