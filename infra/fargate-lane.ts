/**
 * The Fargate lane: for items whose time budget or test size exceeds Lambda's, an ECS cluster in
 * the isolated subnets runs the same executor images with the queue-consumer entry
 * (`functions/execute/consumer.ts`, bundled as `/var/task/consumer.mjs`). One queue and one
 * service per image, scaled on the queue's depth (visible + in flight) between 0 and a cap, so
 * an idle lane costs nothing but the interface endpoints (see network.ts): about $73 a month,
 * which is why the lane is opt-in (`-c fargateLane=true`). A task running an
 * item holds ECS scale-in protection (the consumer asks the container agent; the agent calls
 * UpdateTaskProtection with the task role), so scaling in stops idle tasks only; a task told
 * to stop drains within {@link CONSUMER_STOP_TIMEOUT}.
 *
 * The tasks are judges, like the execute functions: they invoke the same runner functions
 * (runners.ts), splitting a long sample over several invocations to fit the runner's
 * timeout. A runner container inside the task was rejected: every container of a task can
 * reach the task-role credentials endpoint (169.254.170.2) and shares the task's network
 * namespace, so it would sit next to the keys it must not hold; a separate runner task with
 * no role and no network could not be reached by its judge at all.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AdjustmentType } from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { executorEnvironment, grantExecutorAccess, imagePlatform, type ExecutorsProps } from './executors.ts';
import { acknowledge, acknowledgeResources } from './nag.ts';
import { EXECUTOR_IMAGES, FARGATE_TASK } from './languages.ts';
import { IMAGES_CONTEXT, imageBuildArgs } from './paths.ts';
import { WorkQueue } from './work-queue.ts';

/** Visibility timeout of a Fargate queue: the consumer extends it while a long item runs. */
export const FARGATE_VISIBILITY = Duration.minutes(30);

/** Fargate's maximum: SIGTERM to SIGKILL, the time a draining consumer has to finish its items. */
export const CONSUMER_STOP_TIMEOUT = Duration.seconds(120);

/** Command overriding the Lambda image's entrypoint: run the queue consumer with Node.js. */
export const CONSUMER_ENTRYPOINT = ['/var/lang/bin/node'];
export const CONSUMER_COMMAND = ['/var/task/consumer.mjs'];

/** Scaling steps on queue depth: 0 tasks when empty, 1 for a trickle, the cap for a backlog. */
export function queueDepthSteps(maxTasks: number): { lower?: number; upper?: number; change: number }[] {
  const middle = Math.max(1, Math.ceil(maxTasks / 2));
  return [
    { upper: 0, change: 0 },
    { lower: 1, upper: 20, change: 1 },
    { lower: 20, upper: 100, change: middle },
    { lower: 100, change: maxTasks },
  ];
}

/** Properties of {@link FargateLane}: the executors' own, the lane's network (network.ts), and the most tasks per image. */
export interface FargateLaneProps extends Omit<ExecutorsProps, 'judgeMaxConcurrency'> {
  vpc: ec2.IVpc;
  subnets: ec2.SubnetSelection;
  securityGroup: ec2.ISecurityGroup;
  maxTasks: number;
}

/** ECS cluster + one queue-scaled Fargate service per executor image. */
export class FargateLane extends Construct {
  readonly cluster: ecs.Cluster;
  readonly queues = new Map<string, WorkQueue>();
  readonly services = new Map<string, ecs.FargateService>();

  constructor(scope: Construct, id: string, props: FargateLaneProps) {
    super(scope, id);
    this.cluster = new ecs.Cluster(this, 'Cluster', { vpc: props.vpc, containerInsightsV2: ecs.ContainerInsights.ENABLED });
    for (const image of EXECUTOR_IMAGES) {
      const name = image.id.charAt(0).toUpperCase() + image.id.slice(1);
      const work = new WorkQueue(this, `${name}Queue`, { visibilityTimeout: FARGATE_VISIBILITY, maxAge: Duration.hours(2) });
      const task = new ecs.FargateTaskDefinition(this, `${name}Task`, {
        cpu: FARGATE_TASK.cpu,
        memoryLimitMiB: FARGATE_TASK.memoryMiB,
        runtimePlatform: {
          cpuArchitecture: props.architecture === 'arm64' ? ecs.CpuArchitecture.ARM64 : ecs.CpuArchitecture.X86_64,
          operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
        },
      });
      const logGroup = new logs.LogGroup(this, `${name}Logs`, {
        retention: props.logRetentionDays as logs.RetentionDays,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      task.addContainer('consumer', {
        image: ecs.ContainerImage.fromAsset(IMAGES_CONTEXT, { buildArgs: imageBuildArgs(image.id), platform: imagePlatform(props.architecture) }),
        entryPoint: CONSUMER_ENTRYPOINT,
        command: CONSUMER_COMMAND,
        logging: ecs.LogDrivers.awsLogs({ logGroup, streamPrefix: `execute-${image.id}` }),
        environment: {
          ...executorEnvironment(image, props.bucket, props.ledger, props.aggregateQueue),
          QUEUE_URL: work.queue.queueUrl,
          AWS_REGION: Stack.of(this).region,
          ...props.runners.attachJudge(image.id, task.taskRole),
        },
        readonlyRootFilesystem: false,
        stopTimeout: CONSUMER_STOP_TIMEOUT,
      });
      grantExecutorAccess(task.taskRole, props.bucket, props.ledger);
      work.queue.grantConsumeMessages(task.taskRole);
      // The container agent sets scale-in protection with the task role's credentials.
      const clusterTasks = Stack.of(this).formatArn({ service: 'ecs', resource: 'task', resourceName: `${this.cluster.clusterName}/*` });
      task.taskRole.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['ecs:UpdateTaskProtection', 'ecs:GetTaskProtection'], resources: [clusterTasks] }),
      );
      props.aggregateQueue.grantSendMessages(task.taskRole);

      const service = new ecs.FargateService(this, `${name}Service`, {
        cluster: this.cluster,
        taskDefinition: task,
        desiredCount: 0,
        minHealthyPercent: 0,
        vpcSubnets: props.subnets,
        securityGroups: [props.securityGroup],
        assignPublicIp: false,
        circuitBreaker: { rollback: true },
      });
      const depth = new cloudwatch.MathExpression({
        expression: 'visible + inflight',
        usingMetrics: {
          visible: work.queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' }),
          inflight: work.queue.metricApproximateNumberOfMessagesNotVisible({ statistic: 'Maximum' }),
        },
        period: Duration.minutes(1),
      });
      service.autoScaleTaskCount({ minCapacity: 0, maxCapacity: props.maxTasks }).scaleOnMetric('QueueDepth', {
        metric: depth,
        scalingSteps: queueDepthSteps(props.maxTasks),
        adjustmentType: AdjustmentType.EXACT_CAPACITY,
        cooldown: Duration.minutes(2),
      });
      acknowledge(
        task.obtainExecutionRole(),
        'AwsSolutions-IAM5[Resource::*]',
        'ecr:GetAuthorizationToken takes no resource; image pulls are otherwise scoped to the asset repository.',
      );
      acknowledgeResources(
        task.taskRole,
        [clusterTasks],
        'Scale-in protection is set on the task itself, whose id is known only at run time; scoped to the tasks of this cluster.',
      );
      acknowledge(task, 'AwsSolutions-ECS2', 'The consumer environment holds resource names and URLs only (bucket, table, queues); no secrets.');
      this.queues.set(image.id, work);
      this.services.set(image.id, service);
    }
  }
}
