/**
 * CDK app entry (cdk.json: `npx tsx bin/app.ts`). The only place that reads context or the
 * environment: context becomes a validated PolyevalConfig, and cdk-nag's AWS Solutions checks
 * run over the whole app.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { parseConfig } from '../infra/config.ts';
import { PolyevalStack } from '../infra/stack.ts';

const CONTEXT_KEYS = [
  'architecture',
  'generateMaxConcurrency',
  'benchmarks',
  'nightly',
  'nightlyParameter',
  'nightlySchedule',
  'nightlyTimezone',
  'athenaBytesScannedCutoff',
  'logRetentionDays',
  'fargateLane',
  'fargateMaxTasks',
] as const;

const app = new App();
const context: Record<string, unknown> = {};
for (const key of CONTEXT_KEYS) {
  const value: unknown = app.node.tryGetContext(key);
  if (value !== undefined) context[key] = value;
}
const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? 'Polyeval';
new PolyevalStack(app, stackName, {
  config: parseConfig(context),
  env: { account: process.env['CDK_DEFAULT_ACCOUNT'], region: process.env['CDK_DEFAULT_REGION'] },
  description: 'polyeval: LLM evaluation pipeline (API, SQS fan-out, executors, Athena)',
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
