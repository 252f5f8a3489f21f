/**
 * Where a chat template puts the scored answer: SageMaker `#openai` scores a choice as the
 * assistant's continued message, so the served template (Qwen-style `<|im_start|>assistant\n`,
 * which the fake's `<|assistant|>\n` copies) writes what precedes it. The choice goes in
 * without its delimiter: `assistant\n4`, as the model answers, not `assistant\n 4`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createNetworkProvider } from '#providers/index.ts';
import { startSageMakerServer, type FakeServer, type LogprobFn } from '../../fakes/wire-servers/index.ts';
import { useFakeAwsEnv } from './harness.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A Qwen-style model: right after the assistant header's newline it prefers "4"; after a space
 * there (a text it never produces) its digits are noise that happens to favour "2".
 */
const qwenStyle: LogprobFn = (context, token) => {
  if (context.endsWith('<|assistant|>\n')) return token === '4' ? -0.1 : token === ' ' ? -8 : -3;
  if (context.endsWith('<|assistant|>\n ')) return token === '2' ? -0.5 : -3;
  return -1;
};

describe('SageMaker #openai likelihood under a Qwen-style template', () => {
  it('scores the choice right after the assistant header, as the model answers ("assistant\\n4")', async () => {
    cleanups.push(useFakeAwsEnv());
    const server: FakeServer = await startSageMakerServer({ logprob: qwenStyle });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider('sagemaker:qwen-lmi#openai', { env: {}, endpointUrl: server.url });

    const scores = await provider?.scoreChoices?.({
      taskId: 't',
      prompt: { style: 'chat', messages: [{ role: 'user', content: 'Da 1 a 5? Risposta:' }] },
      choices: [' 1', ' 2', ' 3', ' 4', ' 5'],
    });

    const best = scores?.logprobs.indexOf(Math.max(...(scores?.logprobs ?? [])));
    expect(best).toBe(3);
    const sent = server.requests.map((r) => (r.body as { messages: { role: string; content: string }[] }).messages.at(-1));
    expect(sent.map((m) => m?.content).sort()).toEqual(['1', '2', '3', '4', '5']);
  });
});

describe('SageMaker #tgi next-token on raw text', () => {
  it('appends the choices\' delimiter to the prompt, as the likelihood mode scores `context + " 4"`', async () => {
    cleanups.push(useFakeAwsEnv());
    const server: FakeServer = await startSageMakerServer({ logprob: (context, token) => (context.endsWith(': ') && token === '4' ? -0.1 : -3) });
    cleanups.push(() => server.close());
    const provider = createNetworkProvider('sagemaker:raw-tgi#tgi', { env: {}, endpointUrl: server.url });

    const scores = await provider?.scoreChoices?.({
      taskId: 't',
      prompt: { style: 'completion', messages: [{ role: 'user', content: 'Da 1 a 5? Risposta:' }], completion: 'Da 1 a 5? Risposta:' },
      choices: [' 1', ' 2', ' 3', ' 4', ' 5'],
      scoring: { mode: 'next-token', method: 'tgi-top-n-tokens', reason: 'test', topLogprobs: 5 },
    });

    expect((server.requests[0]?.body as { inputs: string }).inputs).toBe('Da 1 a 5? Risposta: ');
    expect(scores?.logprobs.indexOf(Math.max(...(scores?.logprobs ?? [])))).toBe(3);
  });
});
