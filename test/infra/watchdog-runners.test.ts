// The watchdog construct on its own (infra/watchdog.ts), given runners but no queue alarms: it
// still gets the runners' names, age and timeout and may call cloudwatch:GetMetricData (the
// stall check reads AsyncEventsReceived: layers/app/cloud/runner-events.ts); cdk-nag finds
// nothing unacknowledged. The whole stack's wiring: stack.test.ts.
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import { RunWatchdog } from '../../infra/watchdog.ts';
import { cdkJsonContext, NO_BUNDLING } from './synth.ts';

describe('RunWatchdog with runners and no queue alarms', () => {
  it('names the runners in its environment and may read their metrics, cdk-nag clean', () => {
    const context = { ...cdkJsonContext(), ...NO_BUNDLING };
    const app = new App({ context });
    const stack = new Stack(app, 'WatchdogOnly');
    const ledger = new dynamodb.Table(stack, 'Ledger', { partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING } });
    const queue = new sqs.Queue(stack, 'Work', { enforceSSL: true });
    const runner = lambda.Function.fromFunctionName(stack, 'Runner', 'polyeval-runner-python');
    new RunWatchdog(stack, 'Watchdog', {
      config: parseConfig(context),
      ledger,
      aggregateQueue: queue,
      watchedQueues: [queue],
      runners: { functions: [runner], maxEventAge: Duration.hours(6), timeout: Duration.minutes(15) },
    });
    // cdk-nag's checks run as the app is prepared: before the template is made (as synth.ts does).
    const nag = new AwsSolutionsChecks(app).validateScope(app);
    const template = Template.fromStack(stack);
    const [fn] = Object.values(template.findResources('AWS::Lambda::Function'));
    const env = (fn?.['Properties'] as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
    expect(JSON.stringify(env['RUNNER_FUNCTION_NAMES'])).toContain('function:polyeval-runner-python');
    expect(env).toMatchObject({ RUNNER_MAX_EVENT_AGE_SECONDS: '21600', RUNNER_TIMEOUT_SECONDS: '900' });
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).toContain('cloudwatch:GetMetricData');
    // The watchdog’s own findings only (this test's table and queue are bare stand-ins).
    const paths = (v: (typeof nag.violations)[number]) => v.violatingResources.map((r) => (r as { constructPath?: string }).constructPath ?? '');
    expect(nag.violations.filter((v) => paths(v).some((p) => p.includes('/Watchdog/'))).map((v) => `${v.ruleName} at ${paths(v).join(', ')}`)).toEqual([]);
  });
});
