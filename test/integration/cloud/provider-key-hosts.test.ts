// A stored API key goes only to its hosts: a run that names another host for `openai:` is
// refused when it is planned, and the server it named never sees the key. The deployed stage
// code (plan, generate) on moto; the model is a local OpenAI-compatible server that records
// every request's headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiClient, drive, startCloud, type Cloud } from './cloud-harness.ts';
import { startOpenAiServer, type OpenAiServer } from '../../fakes/wire-servers/index.ts';

const KEY = 'sk-deployment-secret-0123456789';

let cloud: Cloud;
let model: OpenAiServer;
const { startRun } = apiClient(() => cloud);

beforeAll(async () => {
  model = await startOpenAiServer();
  // The key is in the functions' environment as generate reads it from SSM; the deployment
  // allows it to 127.0.0.1 only (-c providerKeyHosts=OPENAI_API_KEY=127.0.0.1).
  cloud = await startCloud({ providerEnv: { OPENAI_API_KEY: KEY, PROVIDER_KEY_HOSTS: 'OPENAI_API_KEY=127.0.0.1' } });
}, 120_000);

afterAll(async () => {
  await cloud?.stop();
  await model?.close();
});

/** The same fake server under a name the deployment did not allow. */
function otherHost(url: string): string {
  return url.replace('127.0.0.1', 'localhost');
}

describe('provider keys bound to hosts in the deployed pipeline', () => {
  it('refuses a run whose openai: host the key is not for, naming the key, the host and providerKeyHosts, and sends the server no key', async () => {
    const runId = await startRun({ benchmark: 'sample/abricot', model: `openai:${otherHost(model.url)}#fake-model`, limit: 2 });
    await drive(cloud);

    const run = await cloud.ledger.getRun(runId);
    expect(run?.status).toBe('failed');
    expect(run?.reason).toContain('OPENAI_API_KEY is not sent to localhost');
    expect(run?.reason).toContain('-c providerKeyHosts=OPENAI_API_KEY=localhost');
    const leaked = model.requests.filter((r) => JSON.stringify(r.headers).includes(KEY));
    expect(leaked).toEqual([]);
    expect(model.requests.filter((r) => r.headers.authorization !== undefined)).toEqual([]);
  }, 120_000);

  it('sends the key to a host the deployment allows', async () => {
    const before = model.requests.length;
    const runId = await startRun({ benchmark: 'sample/abricot', model: `openai:${model.url}#fake-model`, limit: 2 });
    await drive(cloud);

    expect((await cloud.ledger.getRun(runId))?.status).toBe('completed');
    // generate's calls carry the key (plan's capability check runs without keys, as deployed).
    const generations = model.requests.slice(before).filter((r) => r.headers.authorization !== undefined);
    expect(generations.length).toBeGreaterThanOrEqual(2);
    expect(generations.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
  }, 120_000);
});
