// `polyeval remote doctor`'s parts against a local server speaking Lambda's GetAccountSettings
// to the real LambdaClient: the account's quota read as AWS sends it, and the synth's own budget
// fitted into it with the settings to deploy with.
import { LambdaClient } from '@aws-sdk/client-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { readAccountConcurrency } from '#aws/lambda-account.ts';
import { concurrencyAdvice, concurrencyBudget } from '#app/cloud/concurrency-budget.ts';
import { concurrencySettings } from '../../../infra/config.ts';
import { cdkJsonContext } from '../../infra/synth.ts';
import { startAccountSettingsServer, type AccountSettingsServer } from '../../fakes/lambda-account-settings.ts';
import { FAKE_AWS } from '../../support/moto.ts';

let server: AccountSettingsServer | undefined;
afterEach(async () => server?.close());

const client = (url: string) =>
  new LambdaClient({ endpoint: url, region: FAKE_AWS.region, credentials: { accessKeyId: FAKE_AWS.accessKeyId, secretAccessKey: FAKE_AWS.secretAccessKey } });

describe('remote doctor: the account against the deployment', () => {
  it('reads the quota and the unreserved part through the real Lambda client (a signed GET /2016-08-19/account-settings)', async () => {
    server = await startAccountSettingsServer({ concurrent: 400, unreserved: 350 });
    expect(await readAccountConcurrency(client(server.url))).toEqual({ limit: 400, unreserved: 350 });
    expect(server.requests).toEqual([
      { method: 'GET', path: '/2016-08-19/account-settings', authorization: expect.stringContaining('/us-east-1/lambda/aws4_request') },
    ]);
  });

  it("says a new account's 400 cannot hold cdk.json's reservations, and which value of runnerReservedConcurrency fits", async () => {
    server = await startAccountSettingsServer({ concurrent: 400, unreserved: 400 });
    const settings = concurrencySettings(cdkJsonContext());
    const advice = concurrencyAdvice(settings, await readAccountConcurrency(client(server.url)));
    expect(advice.budget).toBeUndefined();
    expect(advice.problem?.key).toBe('runnerReservedConcurrency');
    expect(advice.settings).toEqual({ accountConcurrency: 400, runnerReservedConcurrency: 59 });
    // The advice is what the synth accepts, and the next value up is not.
    expect(concurrencyBudget({ ...settings, accountConcurrency: 400, runnerReservedConcurrency: 59 }).unreserved).toBeGreaterThanOrEqual(100);
    expect(() => concurrencyBudget({ ...settings, accountConcurrency: 400, runnerReservedConcurrency: 60 })).toThrow(/runnerReservedConcurrency|unreserved/);
  });

  it('counts what other functions of the account already reserve, and lowers generateMaxConcurrency when that is what does not fit', async () => {
    server = await startAccountSettingsServer({ concurrent: 1000, unreserved: 700 });
    const settings = concurrencySettings({ ...cdkJsonContext(), generateMaxConcurrency: '300' });
    const advice = concurrencyAdvice(settings, await readAccountConcurrency(client(server.url)));
    expect(advice.available).toBe(700);
    expect(advice.problem?.key).toBe('generateMaxConcurrency');
    expect(advice.settings).toEqual({ accountConcurrency: 700, generateMaxConcurrency: 159 });
  });

  it('passes a default account (1,000, nothing reserved) as the synth does', async () => {
    server = await startAccountSettingsServer({ concurrent: 1000, unreserved: 1000 });
    const advice = concurrencyAdvice(concurrencySettings(cdkJsonContext()), await readAccountConcurrency(client(server.url)));
    expect(advice.budget?.judge).toBe(92);
    expect(advice.settings).toEqual({ accountConcurrency: 1000 });
  });
});
