// `polyeval remote doctor` (the built CLI) against a local server speaking Lambda's
// GetAccountSettings, reached through the SDK's own endpoint setting (AWS_ENDPOINT_URL_LAMBDA):
// a new account's quota below what cdk.json reserves is named with the settings to deploy with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAccountSettingsServer, type AccountSettingsServer } from '../fakes/lambda-account-settings.ts';
import { runCli } from '../support/cli.ts';

let server: AccountSettingsServer;
const env = () => ({ AWS_ENDPOINT_URL_LAMBDA: server.url, AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'eu-west-1' });

beforeAll(async () => {
  server = await startAccountSettingsServer({ concurrent: 400, unreserved: 400 });
});
afterAll(async () => server?.close());

describe('polyeval remote doctor', () => {
  it("exits 1 on an account of 400 with cdk.json's settings and prints the settings that fit", async () => {
    const result = await runCli(['remote', 'doctor'], { env: env() });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('account: 400 concurrent executions in eu-west-1, 400 of them unreserved');
    expect(result.stdout).toContain('does not fit: 100 per runner reserves 501');
    expect(result.stdout).toContain('deploy with: npx cdk deploy -c accountConcurrency=400 -c runnerReservedConcurrency=59');
  });

  it('exits 0 with the settings it advised, given as -c values (--json)', async () => {
    const result = await runCli(['remote', '--json', 'doctor', '-c', 'accountConcurrency=400', '-c', 'runnerReservedConcurrency=59'], { env: env() });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ account: { limit: 400, unreserved: 400 }, fits: true, budget: { judge: 13 } });
  });

  it('refuses a malformed -c value naming it (exit 2)', async () => {
    const result = await runCli(['remote', 'doctor', '-c', 'runnerReservedConcurrency=lots'], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('runnerReservedConcurrency');
  });
});
