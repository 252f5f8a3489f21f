/**
 * The polyeval stack: wiring only. Storage and network first, then the queues, the executors
 * (Lambda and Fargate lanes) that the generate function routes to, the stage functions, the API,
 * the nightly schedule and the analytics catalog; last the alarm topic, the outputs and the
 * cost-allocation tags, which cover everything above.
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Alerts } from './alerts.ts';
import { Analytics } from './analytics.ts';
import { Api } from './api.ts';
import type { PolyevalConfig } from './config.ts';
import { Executors } from './executors.ts';
import { FargateLane } from './fargate-lane.ts';
import { grantDatasetBuckets, readableS3Environment } from './dataset-buckets.ts';
import { Network } from './network.ts';
import { Pipeline } from './pipeline.ts';
import { RunnerNetwork } from './runner-network.ts';
import { Runners, RUNNER_MAX_EVENT_AGE, RUNNER_TIMEOUT } from './runners.ts';
import { StageQueues } from './queues.ts';
import { addStackOutputs, tagForCostAllocation } from './outputs.ts';
import { NightlySchedule } from './schedule.ts';
import { Storage } from './storage.ts';
import { RunWatchdog } from './watchdog.ts';
import { BatchStage } from './batch.ts';
import { bindKeyHosts, grantProviderKeys } from './provider-keys.ts';
import type { QueuePair, WorkQueue } from './work-queue.ts';

/** Properties of {@link PolyevalStack}. */
export interface PolyevalStackProps extends StackProps {
  config: PolyevalConfig;
}

/** Everything polyeval needs in one account and region. */
export class PolyevalStack extends Stack {
  readonly storage: Storage;
  /** The Fargate lane's VPC and endpoints; undefined without the lane (the default). */
  readonly network: Network | undefined;
  readonly queues: StageQueues;
  readonly runnerNetwork: RunnerNetwork;
  readonly runners: Runners;
  readonly executors: Executors;
  readonly fargate: FargateLane | undefined;
  readonly pipeline: Pipeline;
  readonly analytics: Analytics;
  readonly api: Api;
  readonly nightly: NightlySchedule;
  readonly watchdog: RunWatchdog;
  /** The batch stage of `remote run --batch` and Bedrock's batch service role. */
  readonly batch: BatchStage;
  readonly alerts: Alerts;

  constructor(scope: Construct, id: string, props: PolyevalStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.storage = new Storage(this, 'Storage');
    const { bucket, ledger } = this.storage;
    // Only the opt-in Fargate lane needs a VPC with interface endpoints (billed by the hour);
    // the Lambda judges are in no VPC and the runners in their own, endpoint-free one.
    this.network = config.fargateLane ? new Network(this, 'Network', { bucket, ledger, flowLogBucket: this.storage.accessLogs, fargateLane: true }) : undefined;
    this.runnerNetwork = new RunnerNetwork(this, 'RunnerNetwork', { flowLogBucket: this.storage.accessLogs });
    this.queues = new StageQueues(this, 'Queues');
    this.runners = new Runners(this, 'Runners', {
      architecture: config.architecture,
      reservedConcurrency: config.runnerReservedConcurrency,
      vpc: this.runnerNetwork.vpc,
      subnets: this.runnerNetwork.subnets,
      securityGroup: this.runnerNetwork.securityGroup,
    });
    this.executors = new Executors(this, 'Executors', {
      runners: this.runners,
      architecture: config.architecture,
      logRetentionDays: config.logRetentionDays,
      bucket,
      ledger,
      aggregateQueue: this.queues.aggregate.queue,
      judgeMaxConcurrency: config.concurrency.judge,
    });
    this.fargate = this.network
      ? new FargateLane(this, 'FargateLane', {
          architecture: config.architecture,
          logRetentionDays: config.logRetentionDays,
          maxTasks: config.fargateMaxTasks,
          bucket,
          ledger,
          aggregateQueue: this.queues.aggregate.queue,
          runners: this.runners,
          vpc: this.network.vpc,
          subnets: this.network.executorSubnets,
          securityGroup: this.network.executorSecurityGroup,
        })
      : undefined;
    this.pipeline = new Pipeline(this, 'Pipeline', {
      config,
      bucket,
      ledger,
      queues: this.queues,
      executeQueues: this.executors.queues,
      fargateQueues: this.fargate?.queues ?? new Map<string, WorkQueue>(),
    });
    this.batch = new BatchStage(this, 'Batch', {
      config,
      bucket,
      ledger,
      aggregateQueue: this.queues.aggregate.queue,
      executeQueues: this.executors.queues,
      fargateQueues: this.fargate?.queues ?? new Map<string, WorkQueue>(),
      plan: this.pipeline.plan,
    });
    // The functions that call model providers read their API keys from one SSM path.
    for (const fn of [this.pipeline.generate, this.batch.handler]) grantProviderKeys(fn, config.providerKeysPath);
    for (const fn of [this.pipeline.plan, this.pipeline.generate, this.batch.handler]) bindKeyHosts(fn, config.providerKeyHosts);
    this.analytics = new Analytics(this, 'Analytics', { bucket, benchmarks: config.benchmarks, bytesScannedCutoff: config.athenaBytesScannedCutoff });
    // Every work queue by name: the api redrives their DLQs, the watchdog waits for them to be empty
    // and keeps their alarms. The runners' answers queues too: a record waiting there is work in
    // flight, and one dead-lettered there is an item the redrive can bring back.
    const workQueues = new Map<string, QueuePair>([
      ['plan', this.queues.plan],
      ['generate', this.queues.generate],
      ['aggregate', this.queues.aggregate],
      ...[...this.executors.queues].map(([image, q]) => [`execute-${image}`, q] as const),
      ...[...(this.fargate?.queues ?? new Map<string, WorkQueue>())].map(([image, q]) => [`fargate-${image}`, q] as const),
      ...[...this.runners.answerPairs].map(([image, q]) => [`answers-${image}`, q] as const),
    ]);
    this.api = new Api(this, 'Api', { config, bucket, ledger, planQueue: this.queues.plan.queue, analytics: this.analytics, redriveQueues: workQueues });
    this.nightly = new NightlySchedule(this, 'Nightly', { config, bucket, ledger, planQueue: this.queues.plan.queue });
    this.watchdog = new RunWatchdog(this, 'Watchdog', {
      config,
      ledger,
      aggregateQueue: this.queues.aggregate.queue,
      watchedQueues: [...workQueues.values()].map((q) => q.queue),
      deadLetterQueues: [...workQueues.values()].map((q) => q.deadLetterQueue),
      alarmQueues: workQueues,
      alarmBus: this.pipeline.bus,
      // The judges hand their programs to these asynchronously: while one may hold an event, stalled runs wait.
      runners: { functions: [...this.runners.functions.values()], maxEventAge: RUNNER_MAX_EVENT_AGE, timeout: RUNNER_TIMEOUT },
    });
    // s3:// datasets and replay files in other buckets (-c datasetBuckets), and where runs may read them.
    grantDatasetBuckets([this.pipeline.plan, this.pipeline.generate, this.batch.handler], config.datasetBuckets);
    for (const starter of [this.api.handler, this.nightly.handler]) {
      for (const [name, value] of Object.entries(readableS3Environment(bucket, config.datasetBuckets))) starter.function.addEnvironment(name, value);
    }
    this.alerts = new Alerts(this, 'Alerts', config.alarmEmail === undefined ? {} : { email: config.alarmEmail });
    this.watchdog.alarmTo(this.alerts.topic);
    addStackOutputs(this, { api: this.api.httpApi, bucket, ledger, analytics: this.analytics, alarmTopic: this.alerts.topic });
    tagForCostAllocation(this);
  }
}
