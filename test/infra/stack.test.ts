// Pins the properties of the synthesized stack that matter: encryption, privacy, DLQs and
// alarms, IAM scope, network isolation, the schedule, API authorisation, Glue and Athena.
import { beforeAll, describe, expect, it } from 'vitest';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EXECUTOR_IMAGES } from '../../infra/languages.ts';
import { synthPolyeval } from './synth.ts';

/** Executor images: each has a Lambda queue, a function and its mapping (and a Fargate queue with the opt-in lane: fargate-lane.test.ts). */
const IMAGE_COUNT = EXECUTOR_IMAGES.length;

type Resource = { Type: string; Properties: Record<string, unknown> };
let template: Template;
let outdir: string;
let json: { Resources: Record<string, Resource> };

function resourcesOf(type: string): [string, Resource][] {
  return Object.entries(json.Resources).filter(([, r]) => r.Type === type);
}

/** Every statement of the inline policies attached to roles whose logical id matches. */
function statementsOfRoles(rolePattern: RegExp): { Action: string | string[]; Resource: unknown }[] {
  // CDK moves statements past a role's inline-policy size into managed policies: both are read.
  return [...resourcesOf('AWS::IAM::Policy'), ...resourcesOf('AWS::IAM::ManagedPolicy')]
    .filter(([, p]) => ((p.Properties['Roles'] ?? []) as { Ref: string }[]).some((r) => rolePattern.test(r.Ref)))
    .flatMap(([, p]) => (p.Properties['PolicyDocument'] as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement);
}

beforeAll(() => {
  const synthesized = synthPolyeval({ generateMaxConcurrency: 7, nightly: { benchmarks: ['rocode'], models: ['reference'], params: { n: 1 } } });
  template = synthesized.template;
  outdir = synthesized.outdir;
  json = template.toJSON() as typeof json;
}, 300_000);

describe('function bundles', () => {
  it('carry the bundled suites and the dictionary packages beside each handler', () => {
    const assets = readdirSync(outdir).filter((d) => d.startsWith('asset.') && existsSync(join(outdir, d, 'index.mjs')));
    expect(assets.length).toBe(7); // api, plan, generate, aggregate, nightly, watchdog, batch (execute is a container image)
    for (const asset of assets) {
      expect(existsSync(join(outdir, asset, 'sample', 'abricot', 'items.jsonl')), asset).toBe(true);
      expect(existsSync(join(outdir, asset, 'node_modules', 'dictionary-ro', 'index.dic')), asset).toBe(true);
    }
  });
});

describe('storage', () => {
  it('encrypts the results bucket, blocks public access and logs to the access-log bucket', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LoggingConfiguration: Match.objectLike({ DestinationBucketName: Match.anyValue() }),
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Prefix: 'runs/', ExpirationInDays: 90, Status: 'Enabled' })]) },
    });
  });

  it('denies every request without TLS on both buckets', () => {
    const policies = resourcesOf('AWS::S3::BucketPolicy');
    expect(policies).toHaveLength(2);
    for (const [, policy] of policies) {
      expect(JSON.stringify(policy.Properties['PolicyDocument'])).toContain('"aws:SecureTransport":"false"');
    }
  });

  it('keeps the ledger on demand with point-in-time recovery and string keys pk/sk', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
    });
  });
});

describe('queues', () => {
  it(`gives each of the 3 stage and ${IMAGE_COUNT} execute queues an encrypted DLQ with maxReceiveCount 5 (AWS: at least 5 for Lambda sources), generate's 50 (throttled items come back)`, () => {
    const work = resourcesOf('AWS::SQS::Queue').filter(([, q]) => q.Properties['RedrivePolicy']);
    // … and each runner's answers queue (its invocation records, which its judge consumes: infra/runners.ts).
    expect(work).toHaveLength(3 + 2 * IMAGE_COUNT);
    const counts = work.map(([id, queue]) => [id, (queue.Properties['RedrivePolicy'] as { maxReceiveCount: number }).maxReceiveCount] as const);
    expect(counts.filter(([id]) => /Generate/.test(id)).map(([, c]) => c)).toEqual([50]);
    for (const [id, count] of counts) if (!/Generate/.test(id)) expect(count, id).toBe(5);
    for (const [, queue] of resourcesOf('AWS::SQS::Queue')) expect(queue.Properties['SqsManagedSseEnabled']).toBe(true);
  });

  it('has the watchdog keep DLQ-depth and age alarms for every queue, routed to the alarm topic, and CloudWatch alarms only for what it cannot watch', () => {
    // The watchdog reads each work queue and its DLQ every tick (layers/app/cloud/queue-alarms.ts).
    const [watchdogId, watchdog] = resourcesOf('AWS::Lambda::Function').find(([id]) => /^Watchdog/.test(id)) ?? [];
    const env = (watchdog?.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
    const spec = String(env['QUEUE_ALARMS']).split(',');
    expect(spec).toEqual([
      'plan=1800',
      'generate=21600',
      'aggregate=3600',
      ...EXECUTOR_IMAGES.map((image) => expect.stringMatching(new RegExp(`^execute-${image.id}=3600$`))),
      // Each runner's answers queue: its dead letters alarm, no age alarm (infra/work-queue.ts QueuePair).
      ...EXECUTOR_IMAGES.map((image) => `answers-${image.id}=-`),
    ]);
    expect(JSON.stringify(env['DEAD_LETTER_QUEUE_URLS'])).toMatch(/Dlq/);
    // The answers queues' URLs are among the watched ones (a record waiting there is work in flight), the api redrives their DLQs.
    const answerQueueIds = resourcesOf('AWS::SQS::Queue')
      .map(([id]) => id)
      .filter((id) => /Answers(?!Dlq)/.test(id));
    expect(answerQueueIds).toHaveLength(EXECUTOR_IMAGES.length);
    for (const id of answerQueueIds) expect(JSON.stringify(env['WATCHED_QUEUE_URLS'])).toContain(id);
    const [, api] = resourcesOf('AWS::Lambda::Function').find(([id]) => /^ApiHandler/.test(id)) ?? [];
    const redrive = JSON.stringify((api?.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables['REDRIVE_QUEUES']);
    for (const image of EXECUTOR_IMAGES) expect(redrive).toContain(`answers-${image.id}`);
    expect(env['ALARM_BUS_NAME']).toBeDefined();
    // Its transitions reach the alarm topic through one rule: the event's message is the mail.
    const [topicId] = resourcesOf('AWS::SNS::Topic')[0] ?? [];
    const rules = resourcesOf('AWS::Events::Rule').filter(([, r]) => JSON.stringify(r.Properties['EventPattern']).includes('QueueAlarm'));
    expect(rules).toHaveLength(1);
    const targets = rules[0]?.[1].Properties['Targets'] as { Arn: unknown; InputTransformer?: { InputPathsMap: Record<string, string> } }[];
    expect(targets).toEqual([expect.objectContaining({ Arn: { Ref: topicId } })]);
    expect(Object.values(targets[0]?.InputTransformer?.InputPathsMap ?? {})).toEqual(['$.detail.message']);
    // EventBridge may publish to the topic (its resource policy), else every notification is dropped.
    const topicStatements = resourcesOf('AWS::SNS::TopicPolicy').flatMap(
      ([, p]) => (p.Properties['PolicyDocument'] as { Statement: Record<string, unknown>[] }).Statement,
    );
    expect(topicStatements).toContainEqual(
      expect.objectContaining({ Effect: 'Allow', Action: 'sns:Publish', Principal: { Service: 'events.amazonaws.com' }, Resource: { Ref: topicId } }),
    );
    // The age alarm reads each queue's ApproximateAgeOfOldestMessage (GetMetricData has no resource scope).
    expect(JSON.stringify(statementsOfRoles(/^Watchdog/))).toContain('cloudwatch:GetMetricData');
    // CloudWatch alarms: none on a queue; the watchdog's errors and missing ticks, nightly and batch errors.
    const alarms = resourcesOf('AWS::CloudWatch::Alarm').map(([id, a]) => [id, a.Properties] as const);
    expect(alarms.filter(([, a]) => a['Namespace'] === 'AWS/SQS')).toEqual([]);
    expect(alarms.map(([, a]) => a['MetricName']).sort()).toEqual(['Errors', 'Errors', 'Errors', 'Invocations']);
    const missing = alarms.find(([, a]) => a['MetricName'] === 'Invocations')?.[1];
    expect(missing).toMatchObject({ ComparisonOperator: 'LessThanThreshold', Threshold: 1, TreatMissingData: 'breaching', Period: 3600 });
    expect(JSON.stringify(missing?.['Dimensions'])).toContain(String(watchdogId));
  });

  it('names every runner, its maximum event age and timeout to the watchdog, which may read their AsyncEventsReceived', () => {
    // A stalled run waits while a runner may still hold an asynchronous event (layers/app/cloud/runner-events.ts).
    const [, watchdog] = resourcesOf('AWS::Lambda::Function').find(([id]) => /^Watchdog/.test(id)) ?? [];
    const env = (watchdog?.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
    const runnerIds = resourcesOf('AWS::Lambda::Function')
      .map(([id]) => id)
      .filter((id) => /^Runners.*Function/.test(id));
    expect(runnerIds).toHaveLength(IMAGE_COUNT);
    const names = JSON.stringify(env['RUNNER_FUNCTION_NAMES']);
    for (const id of runnerIds) expect(names).toContain(`"Ref":"${id}"`);
    // infra/runners.ts: the longest event age Lambda allows (6 h) and Lambda's longest timeout (15 min).
    expect(env).toMatchObject({ RUNNER_MAX_EVENT_AGE_SECONDS: '21600', RUNNER_TIMEOUT_SECONDS: '900' });
    const [, config] = resourcesOf('AWS::Lambda::EventInvokeConfig')[0] ?? [];
    expect(config?.Properties['MaximumEventAgeInSeconds']).toBe(21600);
    const metricReads = statementsOfRoles(/^WatchdogHandlerRole/).filter((st) => [st.Action].flat().includes('cloudwatch:GetMetricData'));
    expect(metricReads).toHaveLength(1);
  });

  it('caps generate at the provider rate limit and reports batch item failures on every mapping', () => {
    const mappings = resourcesOf('AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(3 + 2 * IMAGE_COUNT);
    for (const [, m] of mappings) expect(m.Properties['FunctionResponseTypes']).toEqual(['ReportBatchItemFailures']);
    // generateMaxConcurrency 7: its 35 calls in flight as 2 invocations of 17 (generate-mapping.ts; test/infra/generate-mapping.test.ts).
    const generate = mappings.filter(([id]) => /^PipelineGenerate/.test(id)).map(([, m]) => m.Properties);
    expect(generate).toHaveLength(1);
    expect(generate[0]).toMatchObject({ BatchSize: 17, ScalingConfig: { MaximumConcurrency: 2 } });
  });
});

describe('executors', () => {
  it('grants executors no wildcard action, and object access only under datasets/ and runs/ (writes: items and toolchain records)', () => {
    const statements = statementsOfRoles(/^(Executors|FargateLane).*(Role|TaskRole)/);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      for (const action of [statement.Action].flat()) expect(action).not.toContain('*');
    }
    const objectResources = statements
      .filter((s) => [s.Action].flat().some((a) => a === 's3:GetObject' || a === 's3:PutObject'))
      .flatMap((s) => [s.Resource].flat());
    const suffixes = objectResources.map((r) => JSON.stringify(r).match(/"\/([^"]*)"\]/)?.[1]);
    expect(new Set(suffixes)).toEqual(new Set(['datasets/*', 'runs/*', 'runs/*/items/*', 'runs/*/toolchains/*']));
  });

  it('scopes the ledger actions of executors to the table ARN, BatchGetItem included (a run is read with its shards in one)', () => {
    const ledger = statementsOfRoles(/^Executors/).filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    expect(ledger.length).toBe(IMAGE_COUNT);
    for (const s of ledger) expect(JSON.stringify(s.Resource)).toMatch(/StorageLedger[0-9A-F]+","Arn"/);
    for (const s of ledger) expect([s.Action].flat()).toContain('dynamodb:BatchGetItem');
  });

  it('has no interface endpoint and no NAT gateway by default: nothing bills by the hour between runs', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::InternetGateway', 0);
    template.resourceCountIs('AWS::EC2::VPCEndpoint', 0);
    template.resourceCountIs('AWS::ECS::Cluster', 0);
    for (const [, subnet] of resourcesOf('AWS::EC2::Subnet')) expect(subnet.Properties['MapPublicIpOnLaunch']).toBe(false);
    const images = resourcesOf('AWS::Lambda::Function').filter(([, f]) => f.Properties['PackageType'] === 'Image');
    expect(images).toHaveLength(2 * IMAGE_COUNT); // per image, a judge (execute) and its runner (test/infra/runners.test.ts)
    // Runners (model code) in their VPC with no route; judges (no model code) in none: they reach AWS's public endpoints.
    const runners = images.filter(([, f]) => String(f.Properties['Description']).startsWith('polyeval runner'));
    const judges = images.filter(([, f]) => String(f.Properties['Description']).startsWith('polyeval executor'));
    expect(runners).toHaveLength(IMAGE_COUNT);
    expect(judges).toHaveLength(IMAGE_COUNT);
    for (const [, f] of runners) expect(f.Properties['VpcConfig']).toBeDefined();
    for (const [, f] of judges) expect(f.Properties['VpcConfig']).toBeUndefined();
  });
});

describe('entry points', () => {
  it('routes every API path through AWS_IAM authorization', () => {
    const routes = resourcesOf('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    expect(routes.map((r) => r['RouteKey']).sort()).toEqual([
      'GET /leaderboard',
      'GET /runs',
      'GET /runs/{id}',
      'GET /runs/{id}/metrics',
      'GET /runs/{id}/report',
      'GET /selftest/{id}',
      'POST /runs',
      'POST /runs/{id}/cancel',
      'POST /runs/{id}/redrive',
      'POST /runs/{id}/resume',
      'POST /selftest',
    ]);
    for (const route of routes) expect(route['AuthorizationType']).toBe('AWS_IAM');
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', { AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }) });
  });

  it('lets the api role read reports/* (what its presigned report links GET) and write only run manifests and the self-test', () => {
    const statements = statementsOfRoles(/^ApiHandler.*Role/);
    const objects = (action: string): string[] =>
      statements
        .filter((s) => [s.Action].flat().includes(action))
        .flatMap((s) => [s.Resource].flat())
        .map((r) => JSON.stringify(r).match(/"\/([^"]*)"\]/)?.[1] ?? JSON.stringify(r));
    expect(objects('s3:GetObject')).toContain('reports/*');
    // results/* and athena-results/*: what its Athena queries read (infra/analytics.ts).
    expect(new Set(objects('s3:GetObject'))).toEqual(
      new Set(['runs/*', 'results/runs/*', 'reports/*', 'datasets/*', 'selftest/*', 'results/*', 'athena-results/*']),
    );
    // athena-results/*: where its Athena queries write their results.
    expect(new Set(objects('s3:PutObject'))).toEqual(new Set(['runs/*/manifest.json', 'datasets/selftest/*', 'selftest/*', 'athena-results/*']));
  });

  it('schedules the nightly sweep with its config as the Lambda target input', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(0 3 * * ? *)',
      ScheduleExpressionTimezone: 'UTC',
      Target: Match.objectLike({
        Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^NightlyHandlerFunction'), 'Arn'] },
        // The schedule's time, from which the nightly function derives run ids (a retry starts nothing twice).
        Input: JSON.stringify({
          source: 'inline',
          sweep: { benchmarks: ['rocode'], models: ['reference'], params: { n: 1 } },
          scheduledTime: '<aws.scheduler.scheduled-time>',
        }),
      }),
    });
  });

  it('runs the watchdog every 15 minutes, able to read every work queue’s depth, to look into the DLQs and to send to aggregate only', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(15 minutes)',
      Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^WatchdogHandlerFunction'), 'Arn'] } }),
    });
    const statements = statementsOfRoles(/^WatchdogHandlerRole/);
    const actions = statements.flatMap((statement) => [statement.Action].flat());
    expect(new Set(actions.filter((action) => action.startsWith('sqs:')))).toEqual(
      new Set(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility']),
    );
    // It reads the DLQs (to tell dead-lettered items from lost ones) and no work queue's messages; it deletes nothing.
    const peek = statements.filter((statement) => [statement.Action].flat().includes('sqs:ReceiveMessage'));
    const resources = peek.flatMap((statement) => [statement.Resource].flat() as { 'Fn::GetAtt': [string, string] }[]);
    expect(resources.length).toBeGreaterThanOrEqual(4);
    for (const resource of resources) expect(resource['Fn::GetAtt'][0]).toMatch(/Dlq[0-9A-F]{8}$/);
  });

  it('uses Node.js 22 with X-Ray tracing and Powertools settings for every NodejsFunction', () => {
    const zips = resourcesOf('AWS::Lambda::Function').filter(([, f]) => f.Properties['PackageType'] !== 'Image');
    expect(zips).toHaveLength(7); // api, plan, generate, aggregate, nightly, watchdog, batch
    for (const [, f] of zips) {
      expect(f.Properties['Runtime']).toBe('nodejs22.x');
      expect(f.Properties['Architectures']).toEqual(['arm64']);
      expect(f.Properties['TracingConfig']).toEqual({ Mode: 'Active' });
      expect(Object.keys((f.Properties['Environment'] as { Variables: object }).Variables)).toContain('POWERTOOLS_SERVICE_NAME');
    }
  });
});

describe('analytics', () => {
  it('projects benchmark as an enum and run_id as injected over results/', () => {
    for (const name of ['records', 'metrics']) {
      template.hasResourceProperties('AWS::Glue::Table', {
        TableInput: Match.objectLike({
          Name: name,
          PartitionKeys: [
            { Name: 'benchmark', Type: 'string' },
            { Name: 'run_id', Type: 'string' },
          ],
          Parameters: Match.objectLike({
            'projection.enabled': 'true',
            'projection.benchmark.type': 'enum',
            'projection.run_id.type': 'injected',
            'storage.location.template': Match.objectLike({
              'Fn::Join': Match.arrayWith([Match.arrayWith([`/results/${name}/benchmark=\${benchmark}/run_id=\${run_id}/`])]),
            }),
          }),
        }),
      });
    }
  });

  it('limits Athena bytes scanned per query and enforces the workgroup configuration', () => {
    template.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: Match.objectLike({ BytesScannedCutoffPerQuery: 1073741824, EnforceWorkGroupConfiguration: true }),
    });
  });
});
