/**
 * The Anthropic Message Batches client against the fake Message Batches API on loopback:
 * the requests it writes, the statuses it maps, errored / expired / canceled results, and a
 * whole ABRICOT run generated through it with the verdicts of the same answers through the
 * OpenAI Batch API.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BatchClient, BatchRecord } from '#core/models/batch.ts';
import { AnthropicBatchClient } from '#providers/batch/anthropic-batch.ts';
import { OpenAiBatchClient } from '#providers/batch/openai-batch.ts';
import { resolveOptions } from '#providers/options.ts';
import { runThrough } from '../../support/batch-pipeline.ts';
import { startAnthropicBatchServer, startOpenAiBatchServer, type AnthropicBatchServerOptions } from '../../fakes/wire-servers/index.ts';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const options = resolveOptions({ env: { ANTHROPIC_API_KEY: 'sk-ant-test', OPENAI_API_KEY: 'sk-test' }, retryBaseMs: 1 });

async function anthropic(opts: AnthropicBatchServerOptions = {}) {
  const server = await startAnthropicBatchServer({ apiKey: 'sk-ant-test', ...opts });
  servers.push(server);
  return { server, client: new AnthropicBatchClient(server.url, 'claude-haiku-4-5', options, 'ANTHROPIC_API_KEY', 'anthropic') };
}

function record(id: string): BatchRecord {
  return {
    recordId: id,
    request: {
      taskId: `t-${id}`,
      sample: 0,
      prompt: { style: 'chat', system: 'Rispondi con una cifra.', messages: [{ role: 'user', content: `Domanda ${id}` }] },
      params: { temperature: 0.2, topP: 0.9, maxTokens: 4, stop: [' ', '\n\n'] },
    },
  };
}

async function untilEnded(client: BatchClient, id: string): Promise<string[]> {
  const seen: string[] = [];
  for (;;) {
    const s = await client.status(id);
    seen.push(`${s.providerStatus}:${s.counts.succeeded}/${s.counts.total}`);
    if (s.phase === 'ended') return seen;
  }
}

describe('Anthropic Message Batches client', () => {
  it('writes the Messages API body of the on-demand call (the model refuses top_p with temperature and whitespace-only stops) and refuses a custom_id the API would', async () => {
    const { client } = await anthropic();
    expect(JSON.parse(client.encode(record('r0')))).toEqual({
      custom_id: 'r0',
      params: {
        model: 'claude-haiku-4-5',
        max_tokens: 4,
        system: 'Rispondi con una cifra.',
        messages: [{ role: 'user', content: 'Domanda r0' }],
        temperature: 0.2,
      },
    });
    expect(() => client.encode(record('run/1'))).toThrow(/custom_id/);
    // The stops not sent cut the answer afterwards, as the on-demand call does.
    const generation = { text: '4 è la risposta', usage: { promptTokens: 1, completionTokens: 3 }, latencyMs: 0, attempts: 1 };
    expect(client.finish(generation, record('r0').request.params).text).toBe('4');
  });

  it('follows a batch from in_progress to ended and reads each result by custom_id', async () => {
    const { server, client } = await anthropic({ answer: (prompt) => (prompt.includes('r2') ? '5' : '1') });
    const id = await client.submit(['r0', 'r1', 'r2'].map((r) => client.encode(record(r))));
    expect(await untilEnded(client, id)).toEqual(['in_progress:0/3', 'ended:3/3']);
    const results = await client.results(id);
    expect(results.map((r) => [r.recordId, r.ok && r.generation.text, r.ok && r.generation.usage.completionTokens]).sort()).toEqual([
      ['r0', '1', 1],
      ['r1', '1', 1],
      ['r2', '5', 1],
    ]);
    expect(server.requests[0]?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it('maps errored, expired and canceled requests to failures with their reason', async () => {
    const expiring = await anthropic({ expireAfter: 2, reject: (id) => (id === 'r0' ? 'max_tokens: too large' : undefined) });
    const id = await expiring.client.submit(['r0', 'r1', 'r2', 'r3'].map((r) => expiring.client.encode(record(r))));
    await untilEnded(expiring.client, id);
    expect(await expiring.client.status(id)).toMatchObject({ ending: 'expired', counts: { succeeded: 1, failed: 3 } });
    const byId = new Map((await expiring.client.results(id)).map((r) => [r.recordId, r]));
    expect(byId.get('r0')).toMatchObject({ ok: false, error: 'errored: invalid_request_error: max_tokens: too large' });
    expect(byId.get('r1')).toMatchObject({ ok: true });
    expect(byId.get('r3')).toMatchObject({ ok: false, error: expect.stringMatching(/^expired/) });

    const slow = await anthropic({ progressPolls: 1_000 });
    const other = await slow.client.submit(['r0', 'r1'].map((r) => slow.client.encode(record(r))));
    await slow.client.cancel(other);
    expect(await slow.client.status(other)).toMatchObject({ phase: 'ended', ending: 'cancelled' });
    expect((await slow.client.results(other)).every((r) => !r.ok && r.error.startsWith('canceled'))).toBe(true);
  });

  it('generates an ABRICOT run with the verdicts the same answers get through the OpenAI Batch API', async () => {
    const answer = (prompt: string): string => String(1 + (prompt.length % 5));
    const { client } = await anthropic({ answer });
    const openaiServer = await startOpenAiBatchServer({ answer });
    servers.push(openaiServer);
    const viaAnthropic = await runThrough(client);
    const viaOpenAi = await runThrough(new OpenAiBatchClient(openaiServer.url, 'model-a', options, 'openai'));
    expect(Object.keys(viaAnthropic)).toHaveLength(16);
    expect(viaAnthropic).toEqual(viaOpenAi);
    expect(new Set(Object.values(viaAnthropic)).size).toBeGreaterThan(1);
  });
});
