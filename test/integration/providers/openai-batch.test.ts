/**
 * The OpenAI Batch client against the fake Batch API on loopback: the request lines it
 * writes, the statuses it maps, the validation errors of a failed batch, and the job it
 * finds again by its tag.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BatchRecord } from '#core/models/batch.ts';
import { OpenAiBatchClient } from '#providers/batch/openai-batch.ts';
import { resolveOptions } from '#providers/options.ts';
import { InputError } from '#core/errors.ts';
import { capabilitiesOf, shippedCapabilityTable } from '#providers/capabilities.ts';
import { generationFields, RefusedFields } from '#providers/openai-request.ts';
import { startOpenAiBatchServer, startOpenAiServer, type OpenAiBatchServer } from '../../fakes/wire-servers/index.ts';

const servers: OpenAiBatchServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function record(id: string, style: 'chat' | 'completion' = 'chat'): BatchRecord {
  const prompt =
    style === 'chat'
      ? { style, system: 'Rispondi con una cifra.', messages: [{ role: 'user' as const, content: `Domanda ${id}` }] }
      : { style, messages: [], completion: `fun f${id}() =` };
  return { recordId: id, request: { taskId: `t-${id}`, sample: 0, prompt, params: { temperature: 0, topP: 1, maxTokens: 5, stop: [] } } };
}

async function client(options: Parameters<typeof startOpenAiBatchServer>[0] = {}): Promise<{ server: OpenAiBatchServer; client: OpenAiBatchClient }> {
  const server = await startOpenAiBatchServer(options);
  servers.push(server);
  return { server, client: new OpenAiBatchClient(server.url, 'model-a', resolveOptions({ env: { OPENAI_API_KEY: 'sk-test' }, retryBaseMs: 1 }), 'openai') };
}

describe('OpenAI Batch client', () => {
  it('writes one chat or completions request line per record, to the batch endpoint under the API path', async () => {
    const { client: c } = await client();
    expect(JSON.parse(c.encode(record('r0')))).toMatchObject({
      custom_id: 'r0',
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'model-a', max_tokens: 5, messages: [{ role: 'system' }, { role: 'user', content: 'Domanda r0' }] },
    });
    expect(JSON.parse(c.encode(record('r1', 'completion')))).toMatchObject({ url: '/v1/completions', body: { prompt: 'fun fr1() =' } });
  });

  it('gives a reasoning model the on-demand body: max_completion_tokens, its lowest reasoning_effort, no sampling fields', async () => {
    const server = await startOpenAiBatchServer();
    servers.push(server);
    const batch = new OpenAiBatchClient(server.url, 'o3-mini', resolveOptions({ env: { OPENAI_API_KEY: 'sk-test' } }), 'openai');
    const onDemand = generationFields(
      capabilitiesOf(shippedCapabilityTable(), 'openai', 'o3-mini'),
      { temperature: 0.2, topP: 0.9, maxTokens: 5, stop: ['\n'] },
      undefined,
      'o3-mini',
      '/chat/completions',
      new RefusedFields(),
    ).fields;
    const r = record('r0');
    r.request.params = { temperature: 0.2, topP: 0.9, maxTokens: 5, stop: ['\n'] };

    const body = (JSON.parse(batch.encode(r)) as { body: Record<string, unknown> }).body;

    expect(body).toMatchObject({ model: 'o3-mini', max_completion_tokens: 5 + 25_000, reasoning_effort: 'low' });
    for (const field of ['max_tokens', 'temperature', 'top_p', 'stop']) expect(body).not.toHaveProperty(field);
    // One function builds both: the line's fields are the on-demand call's.
    const { model: _model, messages: _messages, ...fields } = body;
    expect(fields).toEqual(onDemand);
  });

  it('records a result left empty by reasoning as a failed record naming the reasoning tokens, billed — as on demand, never an empty answer', async () => {
    // r0 thinks past its whole limit (5 + 25,000); r1 thinks a little and answers.
    const server = await startOpenAiBatchServer({ answer: () => '4', reasoning: (body) => (JSON.stringify(body.messages).includes('r0') ? 40_000 : 100) });
    servers.push(server);
    const batch = new OpenAiBatchClient(server.url, 'o3-mini', resolveOptions({ env: { OPENAI_API_KEY: 'sk-test' }, retryBaseMs: 1 }), 'openai');
    const id = await batch.submit([batch.encode(record('r0')), batch.encode(record('r1'))], 'run-1/batch-0');
    while ((await batch.status(id)).phase !== 'ended');

    const results = await batch.results(id);

    const r0 = results.find((r) => r.recordId === 'r0');
    expect(r0).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^empty answer: the model spent 25005 reasoning tokens thinking and returned no text \(finish_reason "length"\)/),
    });
    expect(r0 && !r0.ok && r0.billed?.completionTokens).toBe(25_005);
    expect(results.find((r) => r.recordId === 'r1')).toMatchObject({ ok: true, generation: { text: '4' } });
  });

  it('tells a server without the Batch API (404 on the list, vLLM and llama.cpp) so in one sentence, as a bad input', async () => {
    const chatOnly = await startOpenAiServer({ flavour: 'vllm' });
    servers.push(chatOnly as unknown as OpenAiBatchServer);
    const c = new OpenAiBatchClient(chatOnly.url, 'fake-model', resolveOptions({ env: { OPENAI_API_KEY: 'sk-test' } }), 'openai');

    const err = await c.find('run-1/batch-0').then(
      () => undefined,
      (e: unknown) => e as Error,
    );

    expect(err).toBeInstanceOf(InputError);
    expect(err?.message).toBe('this server does not offer the OpenAI Batch API; run without --batch');
  });

  it('follows a batch from validating to completed and reads every result by custom_id', async () => {
    const { server, client: c } = await client({ answer: (prompt) => (prompt.includes('r1') ? '4' : '2'), progressPolls: 2 });
    const id = await c.submit(
      ['r0', 'r1', 'r2'].map((r) => c.encode(record(r))),
      'run-1/batch-0',
    );
    const phases: string[] = [];
    for (let status = await c.status(id); ; status = await c.status(id)) {
      phases.push(`${status.providerStatus}:${status.counts.succeeded}/${status.counts.total}`);
      if (status.phase === 'ended') break;
    }
    expect(phases).toEqual(['in_progress:0/3', 'in_progress:1/3', 'finalizing:3/3', 'completed:3/3']);
    const results = await c.results(id);
    expect(results.map((r) => [r.recordId, r.ok && r.generation.text]).sort()).toEqual([
      ['r0', '2'],
      ['r1', '4'],
      ['r2', '2'],
    ]);
    expect(server.requests.find((r) => r.path === '/v1/batches')?.headers.authorization).toBe('Bearer sk-test');
  });

  it('reports a batch that failed validation with the API errors, and has no result for it', async () => {
    const { client: c } = await client();
    const lines = [c.encode(record('r0')), c.encode(record('r0'))];
    const id = await c.submit(lines, 'run-1/batch-0');
    const status = await c.status(id);
    expect(status).toMatchObject({ phase: 'ended', ending: 'failed', providerStatus: 'failed' });
    expect(status.reason).toMatch(/duplicate_custom_id \(line 2\)/);
    expect(await c.results(id)).toEqual([]);
  });

  it('finds the batch it created under a tag, and nothing under another', async () => {
    const { client: c } = await client();
    const id = await c.submit([c.encode(record('r0'))], 'run-1/batch-3');
    expect(await c.find('run-1/batch-3')).toBe(id);
    expect(await c.find('run-1/batch-4')).toBeUndefined();
  });

  it('cancels a running batch: cancelling, then cancelled with batch_cancelled for what did not run', async () => {
    const { client: c } = await client({ progressPolls: 1_000 });
    const id = await c.submit(
      ['r0', 'r1'].map((r) => c.encode(record(r))),
      'run-1/batch-0',
    );
    await c.status(id);
    await c.cancel(id);
    expect((await c.status(id)).phase).toBe('ended');
    const results = await c.results(id);
    expect(results).toHaveLength(2);
    expect(results.every((r) => !r.ok && /^batch_cancelled/.test(r.error))).toBe(true);
  });

  it('fails at once when the account is out of quota: a 429 insufficient_quota is permanent, as on demand (http-json.ts errorCode)', async () => {
    const { server, client: c } = await client({
      faults: [
        { kind: 'status', status: 429, type: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details.' },
      ],
    });
    await expect(c.submit([c.encode(record('r0'))], 'run-1/batch-0')).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining('insufficient_quota'),
    });
    expect(server.requests).toHaveLength(1);
  });
});
