/**
 * `polyeval remote doctor`: before a deploy, fits the deployment's Lambda concurrency (the
 * synth's own budget, layers/app/cloud/concurrency-budget.ts, over cdk.json and `-c` values as
 * infra/config.ts reads them) into this account's real quota (Lambda GetAccountSettings), and
 * says which context settings to deploy with. A new account's quota can be below the 600 the
 * default reservations need; the synth checks only the `accountConcurrency` context value, so
 * without this CloudFormation fails after the images are built.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { InputError } from '#core/errors.ts';
import { concurrencyAdvice, type ConcurrencyAdvice, type ConcurrencySettings } from '#app/cloud/concurrency-budget.ts';
import { readAccountConcurrency, type AccountConcurrency } from '#aws/lambda-account.ts';
import { ConfigError, concurrencySettings } from '../../infra/config.ts';
import { awsSetupError } from './aws-errors.ts';
import { toJson } from './format.ts';

interface DoctorFlags {
  context: string[];
  cdkJson?: string;
}

/** The CDK app's context: cdk.json's `context` (when the file exists), then each `-c key=value` as the CDK CLI passes it (a string). */
export function deploymentContext(cdkJson: string | undefined, values: readonly string[]): Record<string, unknown> {
  const file = resolve(cdkJson ?? 'cdk.json');
  let context: Record<string, unknown> = {};
  if (existsSync(file)) context = ((JSON.parse(readFileSync(file, 'utf8')) as { context?: Record<string, unknown> }).context ?? {}) as Record<string, unknown>;
  else if (cdkJson) throw new InputError(`--cdk-json ${cdkJson}: no such file`, { field: 'cdk-json' });
  for (const value of values) {
    const at = value.indexOf('=');
    if (at <= 0) throw new InputError(`-c ${value}: expected key=value, as cdk deploy -c takes it`, { field: 'context' });
    context[value.slice(0, at)] = value.slice(at + 1);
  }
  return context;
}

/** The doctor's report as text: the account, the deployment, and what to deploy with. */
export function doctorText(region: string, account: AccountConcurrency, settings: ConcurrencySettings, advice: ConcurrencyAdvice): string {
  const lines = [
    `account: ${account.limit} concurrent executions in ${region}, ${account.unreserved} of them unreserved (Lambda GetAccountSettings)`,
    `deployment: runnerReservedConcurrency ${settings.runnerReservedConcurrency} × ${settings.images} runners, generateMaxConcurrency ${settings.generateMaxConcurrency}, fargateMaxTasks ${settings.fargateMaxTasks}`,
  ];
  const flags = Object.entries(advice.settings)
    .map(([key, value]) => `-c ${key}=${value}`)
    .join(' ');
  const judges = (budget: NonNullable<ConcurrencyAdvice['fitted']>): string =>
    budget.judge === undefined ? 'no reservations: a throttled runner sends its item back to its queue' : `each Lambda judge's maxConcurrency ${budget.judge}`;
  if (advice.budget) {
    lines.push(`fits: ${advice.budget.reserved} reserved of the ${advice.available} available, ${judges(advice.budget)}`);
    lines.push(`deploy with: npx cdk deploy ${flags}`);
  } else {
    lines.push(`does not fit: ${advice.problem?.message ?? 'unknown'}`);
    if (advice.fitted) lines.push(`deploy with: npx cdk deploy ${flags}  (${judges(advice.fitted)})`);
    else
      lines.push(`no setting fits ${advice.available} concurrent executions: ask AWS to raise the quota (Service Quotas → AWS Lambda → Concurrent executions)`);
  }
  return lines.join('\n');
}

export function remoteDoctorCommand(): Command {
  return new Command('doctor')
    .description(
      "fit the deployment's Lambda concurrency into this account's quota (GetAccountSettings) and say which -c settings to deploy with (exit 1 if the settings given do not fit)",
    )
    .option(
      '-c, --context <key=value>',
      'a CDK context value as `cdk deploy -c` takes it; repeatable',
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .option('--cdk-json <file>', "the CDK app's settings file (default: ./cdk.json when there is one)")
    .action(async (flags: DoctorFlags, command: Command) => {
      const globals = command.optsWithGlobals<{ region?: string; json?: boolean }>();
      let settings: ConcurrencySettings;
      try {
        settings = concurrencySettings(deploymentContext(flags.cdkJson, flags.context));
      } catch (error) {
        if (error instanceof ConfigError) throw new InputError(error.message, { field: error.key });
        throw error;
      }
      const { LambdaClient } = await import('@aws-sdk/client-lambda');
      const client = new LambdaClient(globals.region ? { region: globals.region } : {});
      const region = await client.config.region().catch((error: unknown) => {
        throw new InputError(
          `no AWS Region: pass --region <region> (the Region you deploy to), set AWS_REGION, or give your AWS profile a region (${(error as Error).message})`,
        );
      });
      const account = await readAccountConcurrency(client).catch((error: unknown) => {
        throw awsSetupError(error, `Lambda GetAccountSettings in ${region}`) ?? error;
      });
      const advice = concurrencyAdvice(settings, account);
      const text = globals.json
        ? toJson({
            region,
            account,
            settings,
            available: advice.available,
            fits: advice.budget !== undefined,
            ...(advice.problem ? { problem: { key: advice.problem.key, message: advice.problem.message } } : {}),
            deploy_with: advice.fitted ? advice.settings : null,
            budget: advice.fitted ?? null,
          })
        : doctorText(region, account, settings, advice);
      process.stdout.write(`${text}\n`);
      if (!advice.budget) process.exitCode = 1;
    });
}
