/**
 * The HTTP API (API Gateway v2): every route IAM-authorised (callers sign with SigV4), one api
 * function behind all routes, JSON access logs, stage throttling.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { Analytics } from './analytics.ts';
import type { PolyevalConfig } from './config.ts';
import { LEDGER_CONTROL_ACTIONS, ledgerAccess } from './defaults/iam-statements.ts';
import { grantObjectAccess } from './grants.ts';
import { PolyevalFunction } from './node-function.ts';
import type { QueuePair } from './work-queue.ts';

/** The routes of DESIGN §10, all served by the api function. */
export const API_ROUTES: readonly { method: apigwv2.HttpMethod; path: string }[] = [
  { method: apigwv2.HttpMethod.POST, path: '/runs' },
  { method: apigwv2.HttpMethod.GET, path: '/runs' },
  { method: apigwv2.HttpMethod.GET, path: '/runs/{id}' },
  { method: apigwv2.HttpMethod.GET, path: '/runs/{id}/metrics' },
  { method: apigwv2.HttpMethod.GET, path: '/runs/{id}/report' },
  { method: apigwv2.HttpMethod.POST, path: '/runs/{id}/cancel' },
  { method: apigwv2.HttpMethod.POST, path: '/runs/{id}/redrive' },
  { method: apigwv2.HttpMethod.POST, path: '/runs/{id}/resume' },
  { method: apigwv2.HttpMethod.GET, path: '/leaderboard' },
  { method: apigwv2.HttpMethod.POST, path: '/selftest' },
  { method: apigwv2.HttpMethod.GET, path: '/selftest/{id}' },
];

/** JSON access-log line: who called which route, and how it ended. */
export function accessLogFormat(): apigateway.AccessLogFormat {
  return apigateway.AccessLogFormat.custom(
    JSON.stringify({
      requestId: '$context.requestId',
      requestTime: '$context.requestTime',
      sourceIp: '$context.identity.sourceIp',
      caller: '$context.identity.userArn',
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLength: '$context.responseLength',
      latencyMs: '$context.responseLatency',
      integrationError: '$context.integrationErrorMessage',
    }),
  );
}

/** Properties of {@link Api}. */
export interface ApiProps {
  config: PolyevalConfig;
  bucket: s3.IBucket;
  ledger: dynamodb.ITable;
  planQueue: sqs.IQueue;
  analytics: Analytics;
  /** Every queue with its DLQ, by name: `POST /runs/{id}/redrive` moves a run's dead letters back. */
  redriveQueues: ReadonlyMap<string, QueuePair>;
}

/** HTTP API + api function. */
export class Api extends Construct {
  readonly httpApi: apigwv2.HttpApi;
  readonly handler: PolyevalFunction;

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);
    const { config, bucket, ledger } = props;
    this.handler = new PolyevalFunction(this, 'Handler', {
      name: 'api',
      architecture: config.architecture,
      logRetentionDays: config.logRetentionDays,
      description: 'polyeval HTTP API: start runs, read status, metrics and the leaderboard',
      timeout: Duration.seconds(29),
      memorySize: 1024,
      environment: {
        BUCKET_NAME: bucket.bucketName,
        TABLE_NAME: ledger.tableName,
        PLAN_QUEUE_URL: props.planQueue.queueUrl,
        ATHENA_WORKGROUP: props.analytics.workGroupName,
        GLUE_DATABASE: props.analytics.databaseName,
        REDRIVE_QUEUES: JSON.stringify([...props.redriveQueues].map(([name, q]) => ({ name, dlqUrl: q.deadLetterQueue.queueUrl, queueUrl: q.queue.queueUrl }))),
      },
    });
    for (const work of props.redriveQueues.values()) {
      work.deadLetterQueue.grantConsumeMessages(this.handler.role);
      work.queue.grantSendMessages(this.handler.role);
    }
    grantObjectAccess(this.handler.role, bucket, {
      read: ['runs/*', 'results/runs/*', 'reports/*', 'datasets/*', 'selftest/*'],
      // The self-test's hostile suite (plan reads it as a dataset) and its list of runs.
      write: ['runs/*/manifest.json', 'datasets/selftest/*', 'selftest/*'],
      list: ['runs/', 'datasets/'],
    });
    this.handler.role.addToPrincipalPolicy(ledgerAccess(ledger, LEDGER_CONTROL_ACTIONS));
    props.planQueue.grantSendMessages(this.handler.role);
    props.analytics.grantQuery(this.handler.role);

    this.httpApi = new apigwv2.HttpApi(this, 'HttpApi', {
      apiName: Stack.of(this).stackName,
      description: 'polyeval runs, metrics and leaderboard (SigV4)',
      defaultAuthorizer: new HttpIamAuthorizer(),
      createDefaultStage: false,
    });
    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: config.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    new apigwv2.HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: 20, burstLimit: 40 },
      accessLogSettings: { destination: new apigwv2.LogGroupLogDestination(accessLogs), format: accessLogFormat() },
    });
    const integration = new HttpLambdaIntegration('ApiIntegration', this.handler.function);
    for (const route of API_ROUTES) {
      this.httpApi.addRoutes({ path: route.path, methods: [route.method], integration });
    }
  }
}
