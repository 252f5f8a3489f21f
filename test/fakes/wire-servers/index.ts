/**
 * Local HTTP servers that speak the real wire formats of Bedrock runtime (Converse),
 * SageMaker runtime (InvokeEndpoint with TGI or vLLM containers) and OpenAI-compatible
 * servers, for integration and end-to-end tests. Every server listens on 127.0.0.1 only.
 */
export { startBedrockServer, type BedrockServer, type BedrockServerOptions } from './bedrock-server.ts';
export { startBedrockBatchServer, type BedrockBatchServer, type BedrockBatchServerOptions } from './bedrock-batch-server.ts';
export { startSageMakerServer, renderChat, type SageMakerServerOptions } from './sagemaker-server.ts';
export {
  startOpenAiServer,
  startAzureOpenAiServer,
  startGeminiServer,
  type OpenAiServer,
  type OpenAiServerOptions,
  type OpenAiFlavour,
  type AzureOpenAiServer,
  type AzureOpenAiServerOptions,
  type GeminiServer,
  type GeminiServerOptions,
} from './openai-server.ts';
export type { Fault, FakeServer, FaultOptions, RecordedRequest } from './http-server.ts';
export { tokenize, scoreText, flatLogprob, favourDigit, leadingSpaceDigit, type LogprobFn } from './tokenize.ts';
export { startOpenAiBatchServer, type OpenAiBatchServer, type OpenAiBatchServerOptions } from './openai-batch-server.ts';
export { startAnthropicBatchServer, type AnthropicBatchServer, type AnthropicBatchServerOptions } from './anthropic-batch-server.ts';
export { type TokenizerName, type TokenStrings } from './real-tokenizers.ts';
export { startAnthropicServer, type AnthropicServerOptions } from './anthropic-server.ts';
export { startOllamaServer, type OllamaServer, type OllamaServerOptions } from './ollama-server.ts';
