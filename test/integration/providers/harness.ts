/**
 * Shared setup of the provider protocol tests: one case per provider flavour, each pairing
 * a fake wire server with the spec and options that reach it through the real client.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { GenerateRequest } from '#core/models/provider.ts';
import type { ProviderOptions } from '#providers/index.ts';
import { startBedrockServer, startOpenAiServer, startSageMakerServer, type FakeServer, type FaultOptions } from '../../fakes/wire-servers/index.ts';

export interface ProviderCase {
  name: string;
  start(options: FaultOptions & { answer?: (prompt: string) => string }): Promise<FakeServer>;
  spec(server: FakeServer): string;
  /** Endpoint override for the AWS ones; the OpenAI spec carries its URL. */
  options(server: FakeServer): ProviderOptions;
}

export const PROVIDER_CASES: ProviderCase[] = [
  {
    name: 'bedrock',
    start: (o) => startBedrockServer(o),
    spec: () => 'bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0',
    options: (s) => ({ endpointUrl: s.url }),
  },
  {
    name: 'sagemaker#tgi',
    start: (o) => startSageMakerServer(o),
    spec: () => 'sagemaker:my-tgi-endpoint#tgi',
    options: (s) => ({ endpointUrl: s.url }),
  },
  {
    name: 'sagemaker#openai',
    start: (o) => startSageMakerServer(o),
    spec: () => 'sagemaker:my-vllm-endpoint#openai',
    options: (s) => ({ endpointUrl: s.url }),
  },
  {
    name: 'openai',
    start: (o) => startOpenAiServer(o),
    spec: (s) => `openai:${s.url}#fake-model`,
    options: () => ({}),
  },
];

/** Fake AWS credentials and region for the real SDK clients; returns the restore function. */
export function useFakeAwsEnv(extra: Record<string, string> = {}): () => void {
  const vars: Record<string, string> = {
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: 'us-east-1',
    ...extra,
  };
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  for (const [k, v] of Object.entries(vars)) process.env[k] = v;
  // A developer's own profile or session token must not leak into the tests.
  const cleared = ['AWS_PROFILE', 'AWS_SESSION_TOKEN', 'AWS_ENDPOINT_URL', 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME', 'AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME'].filter(
    (k) => !(k in vars),
  );
  const savedCleared = Object.fromEntries(cleared.map((k) => [k, process.env[k]]));
  for (const k of cleared) delete process.env[k];
  return () => {
    for (const [k, v] of Object.entries({ ...saved, ...savedCleared })) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

/** A chat request in Italian, greedy. */
export function chatRequest(overrides: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    taskId: 'abstractness/1',
    sample: 0,
    prompt: { system: 'Sei un assistente preciso.', messages: [{ role: 'user', content: 'Quanto fa due più due?' }], style: 'chat' },
    params: { temperature: 0, topP: 1, maxTokens: 64, stop: [] },
    ...overrides,
  };
}

/** Options that make retries instant and record every backoff delay asked for (jitter pinned to its low end). */
export function recordingRetries(): { delays: number[]; options: ProviderOptions } {
  const delays: number[] = [];
  return {
    delays,
    options: {
      retryBaseMs: 1,
      random: () => 0,
      sleep: async (ms: number) => {
        delays.push(ms);
      },
    },
  };
}

/**
 * A provider test file's set-up: the fake AWS environment for the whole file, and a list of
 * closers (servers, providers, restores) run after each test, last pushed first.
 */
export function useProviderSuite(): (() => Promise<void>)[] {
  let restoreEnv: () => void = () => undefined;
  beforeAll(() => {
    restoreEnv = useFakeAwsEnv();
  });
  afterAll(() => restoreEnv());
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  return cleanups;
}
