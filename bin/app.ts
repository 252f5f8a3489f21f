/**
 * CDK app entry (cdk.json: `npx tsx bin/app.ts`). The only place that reads context or the
 * environment: context becomes a validated PolyevalConfig, and cdk-nag's AWS Solutions checks
 * run over the whole app (an unacknowledged error fails the synth).
 */
import { App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ConfigError, DEFAULT_STACK_NAME, parseConfig } from '../infra/config.ts';
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
  'runnerReservedConcurrency',
  'accountConcurrency',
  'alarmEmail',
  'batchQuotas',
  'batchTimeoutHours',
  'providerKeysPath',
  'providerKeyHosts',
  'datasetBuckets',
] as const;

/**
 * The validated config; a context value the deployment cannot take (a ConfigError, which names
 * the key, why and what fits) ends the app with that one line on stderr and exit 1, not an
 * uncaught-exception dump. Any other error is thrown as it is, with its stack.
 */
function configOrExit(input: Record<string, unknown>): ReturnType<typeof parseConfig> {
  try {
    return parseConfig(input);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

const app = new App();
const context: Record<string, unknown> = {};
for (const key of CONTEXT_KEYS) {
  const value: unknown = app.node.tryGetContext(key);
  if (value !== undefined) context[key] = value;
}
const stackName = (app.node.tryGetContext('stackName') as string | undefined) ?? DEFAULT_STACK_NAME;
new PolyevalStack(app, stackName, {
  config: configOrExit({ ...context, stackName }),
  env: { account: process.env['CDK_DEFAULT_ACCOUNT'], region: process.env['CDK_DEFAULT_REGION'] },
  description: 'polyeval: LLM evaluation pipeline (API, SQS fan-out, executors, Athena)',
});
// cdk-nag 3 expects CDK to hand it the construct tree during validation; this aws-cdk-lib does
// not yet, so the pack walks the tree directly and an unacknowledged error fails the synth.
const report = new AwsSolutionsChecks(app, { verbose: true }).validateScope(app);
for (const violation of report.violations) {
  const where = violation.violatingResources.map((r) => (r as { constructPath?: string }).constructPath ?? r.resourceLogicalId).join(', ');
  console.error(`[cdk-nag ${(violation as { severity?: string }).severity ?? 'error'}] ${violation.ruleName} at ${where}: ${violation.description}`);
}
if (report.violations.some((v) => (v as { severity?: string }).severity !== 'warning')) {
  throw new Error(`cdk-nag: ${report.violations.length} unacknowledged finding(s); acknowledge each with a reason or fix it`);
}
app.synth();
