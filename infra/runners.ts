/**
 * The untrusted runner functions (DESIGN §7): per executor image, a Lambda from the same image
 * with the runner as its process (`node /var/task/runner.mjs`, functions/runner/main.ts),
 * invoked synchronously by that image's judges (the execute function and the Fargate task),
 * given a program and test inputs, answering outputs. It is built to hold nothing worth
 * stealing:
 * - its role allows only what Lambda needs to attach it to the VPC, and denies every request
 *   made with its credentials from inside the function: Lambda adds `lambda:SourceFunctionArn`
 *   to requests made with the credentials in the execution environment (and to the log and
 *   trace writes it makes on the function's behalf), not to the network-interface calls it
 *   makes for VPC attachment ("Using source function ARN to control function access
 *   behavior", Lambda developer guide) — so a stolen key can do nothing, and the runner has no
 *   CloudWatch Logs (it reports to the judge in its answer instead);
 * - it sits in a VPC of its own with DNS support off (runner-network.ts: security groups do not
 *   filter the Amazon DNS server), in subnets with no route out (PRIVATE_ISOLATED: no NAT, no
 *   internet gateway), no gateway-endpoint route and no interface endpoint, behind a security
 *   group with no egress rule;
 * - its environment names no bucket, table or queue (it has no environment variables at all).
 *
 * The Lambda judge hands off (layers/app/cloud/runner-handoff.ts): it invokes its runner
 * asynchronously and returns, so it does not bill while the runner works. The runner's
 * asynchronous configuration sends every invocation record — success and failure alike — to
 * its answers queue, which the judge consumes ({@link Runners.attachHandoff}); no retries (the
 * judge's scorer retries a failed runner once, as with a synchronous invoke) and the longest
 * event age (an event waiting for the runner's reserved concurrency is not dropped early).
 * Lambda sends a destination record with the function's execution role, so the runner's role
 * gains `sqs:SendMessage` on that one queue; the deny above still refuses it to function code
 * (Lambda adds `lambda:SourceFunctionArn` only to requests from the execution environment and
 * to its log, trace and EFS calls — not to destination delivery), and function code has no
 * route to SQS in any case.
 *
 * Each runner has reserved concurrency (layers/app/cloud/concurrency-budget.ts): its judges
 * wait for it synchronously, so it must not compete with the stage functions for the
 * account's pool and answer 429 (the judges' mappings are capped to match, executors.ts).
 */
import { Duration } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Architecture } from './config.ts';
import { lambdaArchitecture } from './defaults/function-defaults.ts';
import { vpcAttachmentStatement } from './defaults/iam-statements.ts';
import { imagePlatform, JUDGE_BATCH } from './executors.ts';
import { EXECUTOR_IMAGES } from './languages.ts';
import { deadLetterQueueProps, visibilityTimeoutFor, workQueueProps } from './defaults/queue-defaults.ts';
import { acknowledge } from './nag.ts';
import { IMAGES_CONTEXT, imageBuildArgs } from './paths.ts';
import type { QueuePair } from './work-queue.ts';

/**
 * How long Lambda keeps a runner's event that waits for concurrency: the most it allows.
 * Bounds (read 2026-12-06): maximum event age 60 s to 6 h, retry attempts 0 to 2 — Lambda
 * developer guide, "Configuring error handling settings for Lambda asynchronous invocations"
 * (docs.aws.amazon.com/lambda/latest/dg/invocation-async-configuring.html: "up to 6 hours",
 * "between 0 and 2"), and the CDK's EventInvokeConfigOptions reference (minimum 60 seconds;
 * aws-cdk-lib's event-invoke-config.ts refuses values outside 60–21600 s and 0–2).
 */
export const RUNNER_MAX_EVENT_AGE = Duration.hours(6);
/** The judge's timeout (executors.ts): its answers queue's visibility timeout is six times it. */
const JUDGE_TIMEOUT = Duration.minutes(5);

/** The runner's process instead of the image's Lambda handler. */
export const RUNNER_ENTRYPOINT = ['/var/lang/bin/node'];
export const RUNNER_COMMAND = ['/var/task/runner.mjs'];
/** Lambda's maximum: long samples are split over invocations (layers/app/cloud/runner-plan.ts). */
export const RUNNER_TIMEOUT = Duration.minutes(15);

/** Denies every request signed with the runner's credentials from inside the function. */
export function denyFromFunctionCode(): iam.PolicyStatement {
  return new iam.PolicyStatement({
    sid: 'DenyEverythingFromFunctionCode',
    effect: iam.Effect.DENY,
    actions: ['*'],
    resources: ['*'],
    conditions: { Null: { 'lambda:SourceFunctionArn': 'false' } },
  });
}

/** Properties of {@link Runners}. */
export interface RunnersProps {
  architecture: Architecture;
  /** Concurrency reserved for each runner (0: none; see concurrency-budget.ts). */
  reservedConcurrency: number;
  vpc: ec2.IVpc;
  subnets: ec2.SubnetSelection;
  securityGroup: ec2.ISecurityGroup;
}

/** One runner function per executor image, keyed by image id. */
export class Runners extends Construct {
  readonly functions = new Map<string, lambda.DockerImageFunction>();
  /** Per image, the queue of its runner's invocation records (the judge's continuations). */
  readonly answerQueues = new Map<string, sqs.Queue>();
  /** Each answers queue with its DLQ, by executor image: the watchdog watches them and the api redrives them (infra/stack.ts). */
  readonly answerPairs = new Map<string, QueuePair>();

  constructor(scope: Construct, id: string, props: RunnersProps) {
    super(scope, id);
    for (const image of EXECUTOR_IMAGES) {
      const name = image.id.charAt(0).toUpperCase() + image.id.slice(1);
      const role = new iam.Role(this, `${name}Role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `polyeval runner-${image.id}: VPC attachment only; nothing from function code`,
      });
      role.addToPrincipalPolicy(vpcAttachmentStatement());
      role.addToPrincipalPolicy(denyFromFunctionCode());
      acknowledge(
        role,
        'AwsSolutions-IAM5[Resource::*]',
        'Lambda VPC attachment (network-interface create/describe/delete, DescribeSubnets) takes no resource-level scope; every request from function code is denied.',
      );
      const fn = new lambda.DockerImageFunction(this, `${name}Function`, {
        code: lambda.DockerImageCode.fromImageAsset(IMAGES_CONTEXT, {
          buildArgs: imageBuildArgs(image.id),
          platform: imagePlatform(props.architecture),
          entrypoint: RUNNER_ENTRYPOINT,
          cmd: RUNNER_COMMAND,
        }),
        description: `polyeval runner for ${image.languages.join(', ')}: runs model code, holds nothing`,
        architecture: lambdaArchitecture(props.architecture),
        memorySize: image.memoryMb,
        timeout: RUNNER_TIMEOUT,
        role,
        vpc: props.vpc,
        vpcSubnets: props.subnets,
        securityGroups: [props.securityGroup],
        ...(props.reservedConcurrency > 0 ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      });
      // Its dead letters alarm through the watchdog, which watches it without an age alarm (work-queue.ts QueuePair); see docs/aws.md.
      const answersDlq = new sqs.Queue(this, `${name}AnswersDlq`, deadLetterQueueProps());
      // A record may be up to 1 MiB (runner-handoff.ts RECORD_BUDGET_BYTES): said explicitly, since a
      // queue's MaximumMessageSize default was 256 KiB before SQS's 2025 raise (messages.ts).
      const answers = new sqs.Queue(this, `${name}Answers`, {
        ...workQueueProps(answersDlq, visibilityTimeoutFor(JUDGE_TIMEOUT)),
        maxMessageSizeBytes: 1024 * 1024,
      });
      // Lambda may still run an event more than once ("Occasionally, your function may receive the
      // same event multiple times, even if no error occurs": Invoke API reference, read 2026-12-06):
      // each record continues its item, and recording is conditional (the ledger's recordItem).
      fn.configureAsyncInvoke({
        retryAttempts: 0,
        maxEventAge: RUNNER_MAX_EVENT_AGE,
        onSuccess: new SqsDestination(answers),
        onFailure: new SqsDestination(answers),
      });
      this.functions.set(image.id, fn);
      this.answerQueues.set(image.id, answers);
      this.answerPairs.set(image.id, { queue: answers, deadLetterQueue: answersDlq });
    }
  }

  /**
   * Makes `judge` (the image's Lambda judge) hand off: it may invoke its runner asynchronously
   * (the same `lambda:InvokeFunction` as {@link attachJudge}) and consumes the runner's answers
   * queue with the same cap as its execute queue.
   */
  attachHandoff(imageId: string, judge: lambda.IFunction, maxConcurrency: number | undefined): Record<string, string> {
    const answers = this.answerQueues.get(imageId);
    if (!answers) throw new Error(`no runner for executor image ${imageId}`);
    judge.addEventSource(
      // Several records at once, as the judge takes new items (JUDGE_BATCH: 10, a 5 s window): their items' next runner jobs go
      // out together again, a task's several per invocation (continuation.ts), and their records in one ledger transaction
      // (record-batch.ts). Without the window a mapping invokes as soon as one record is there: in the simulation
      // (`npm run bench cloud-scale -- --items 10000 --language python --detail`, 2026-12-07) the judge took 5,292 invocations
      // (new items and records together) and 993 GB-s; with it 1,935 and 688 GB-s, and 7.74 DynamoDB write units an item, not 8.47.
      new SqsEventSource(answers, { ...JUDGE_BATCH, reportBatchItemFailures: true, ...(maxConcurrency === undefined ? {} : { maxConcurrency }) }),
    );
    return { RUNNER_HANDOFF: 'async' };
  }

  /** Lets `role` invoke exactly the runner of `imageId` (no version or alias wildcard), and names it in `environment`. */
  attachJudge(imageId: string, role: iam.IRole): Record<string, string> {
    const fn = this.functions.get(imageId);
    if (!fn) throw new Error(`no runner for executor image ${imageId}`);
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }));
    return { RUNNER_FUNCTION_NAME: fn.functionName };
  }
}
