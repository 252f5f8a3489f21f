// What a real account needs from the synthesized template (issue 11): S3 reads of missing keys
// answer NoSuchKey, Bedrock inference profiles are invocable, two stacks coexist, Athena sees
// every registry benchmark, alarms reach someone, the outputs name what users need, costs are
// tagged, lifecycle rules keep what the API reads, Lambda-fed queues allow 5 receives.
// Template-only: assets are not bundled (NO_BUNDLING); compliance.test.ts covers the full synth.
// Over 250 lines on purpose: one synth serves the whole checklist (a synth costs ~30 s here).
import { beforeAll, describe, expect, it } from 'vitest';
import { BENCHMARKS } from '../../layers/core/benchmarks/registry.ts';
import { NO_BUNDLING, synthPolyeval } from './synth.ts';

type Resource = { Type: string; Properties: Record<string, unknown> };
type TemplateJson = { Resources: Record<string, Resource>; Outputs: Record<string, { Value: unknown }> };
type Statement = { Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };

/** Renders a CloudFormation value as text: `{Ref: X}` → `<X>`, GetAtt → `<X.Attr>`, Join joined. */
function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(render).join(',');
  const object = value as Record<string, unknown>;
  if ('Ref' in object) return `<${String(object['Ref'])}>`;
  if ('Fn::GetAtt' in object) return `<${(object['Fn::GetAtt'] as string[]).join('.')}>`;
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map(render).join(separator);
  }
  return JSON.stringify(value);
}

function resources(json: TemplateJson, type: string): [string, Resource][] {
  return Object.entries(json.Resources).filter(([, r]) => r.Type === type);
}

/** Statements of every inline policy, grouped by the role they are attached to. */
function statementsByRole(json: TemplateJson): Map<string, Statement[]> {
  const byRole = new Map<string, Statement[]>();
  // A role's default policy past IAM's inline size limit overflows into managed policies
  // (CDK's minimizePolicies/overflow): both count.
  for (const [, policy] of [...resources(json, 'AWS::IAM::Policy'), ...resources(json, 'AWS::IAM::ManagedPolicy')]) {
    const statements = (policy.Properties['PolicyDocument'] as { Statement: Statement[] }).Statement;
    for (const role of (policy.Properties['Roles'] ?? []) as { Ref: string }[]) byRole.set(role.Ref, [...(byRole.get(role.Ref) ?? []), ...statements]);
  }
  return byRole;
}

const actionsOf = (s: Statement): string[] => [s.Action].flat();
const resourcesOf = (s: Statement): string[] => [s.Resource].flat().map(render);

let json: TemplateJson;
let bucketId: string;

beforeAll(() => {
  // With the opt-in Fargate lane: its scaling alarms and its tasks' tags are checked too.
  json = synthPolyeval({ ...NO_BUNDLING, alarmEmail: 'ops@example.com', fargateLane: true }).template.toJSON() as TemplateJson;
  bucketId = resources(json, 'AWS::S3::Bucket').find(([id]) => id.startsWith('StorageResults'))?.[0] ?? '';
}, 300_000);

describe('S3 reads of keys that do not exist yet', () => {
  it('gives every role that reads results objects s3:ListBucket on the bucket without a condition, so S3 answers NoSuchKey', () => {
    // Bedrock's batch service role is not one of ours: Bedrock reads a job's input file, which
    // exists, and the role may list only the batch-inference/ prefix (infra/batch.ts).
    const assumedByBedrock = new Set(
      resources(json, 'AWS::IAM::Role')
        .filter(([, r]) => JSON.stringify(r.Properties['AssumeRolePolicyDocument'] ?? {}).includes('bedrock.amazonaws.com'))
        .map(([id]) => id),
    );
    expect(assumedByBedrock.size).toBe(1);
    const readers = [...statementsByRole(json)].filter(
      ([role, statements]) =>
        !assumedByBedrock.has(role) &&
        statements.some((s) => actionsOf(s).includes('s3:GetObject') && resourcesOf(s).some((r) => r.startsWith(`<${bucketId}.Arn>/`))),
    );
    expect(readers.length).toBeGreaterThanOrEqual(8); // api, plan, generate, aggregate, nightly, 3 executors (+ Fargate tasks)
    for (const [role, statements] of readers) {
      const list = statements.filter((s) => actionsOf(s).includes('s3:ListBucket') && resourcesOf(s).includes(`<${bucketId}.Arn>`));
      expect(
        list.some((s) => s.Condition === undefined),
        `${role} can list the bucket unconditionally`,
      ).toBe(true);
    }
  });
});

describe('Athena queries of the api function', () => {
  it('may start queries in its own workgroup and write their results, in parts too', () => {
    const [, statements = []] = [...statementsByRole(json)].find(([role]) => role.startsWith('ApiHandlerRole')) ?? [];
    const allowed = (action: string, resource: string): boolean => statements.some((s) => actionsOf(s).includes(action) && resourcesOf(s).includes(resource));
    expect(allowed('athena:StartQueryExecution', 'arn:<AWS::Partition>:athena:<AWS::Region>:<AWS::AccountId>:workgroup/Polyeval')).toBe(true);
    expect(allowed('s3:PutObject', `<${bucketId}.Arn>/athena-results/*`)).toBe(true);
    expect(allowed('s3:AbortMultipartUpload', `<${bucketId}.Arn>/athena-results/*`)).toBe(true);
    expect(allowed('s3:ListMultipartUploadParts', `<${bucketId}.Arn>/athena-results/*`)).toBe(true);
    expect(allowed('s3:ListBucketMultipartUploads', `<${bucketId}.Arn>`)).toBe(true);
  });
});

describe('Bedrock model invocation', () => {
  function generateStatements(): Statement[] {
    const [, statements] = [...statementsByRole(json)].find(([role]) => role.startsWith('PipelineGenerateRole')) ?? [];
    return (statements ?? []).filter((s) => actionsOf(s).includes('bedrock:InvokeModel'));
  }

  it('allows on-demand models, cross-Region inference profiles and application inference profiles in the stack Region', () => {
    const inRegion = generateStatements().find((s) => s.Condition === undefined);
    expect(inRegion).toBeDefined();
    expect(actionsOf(inRegion as Statement)).toEqual(['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream']);
    expect(resourcesOf(inRegion as Statement)).toEqual(
      expect.arrayContaining([
        'arn:<AWS::Partition>:bedrock:<AWS::Region>::foundation-model/*',
        'arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/*',
        'arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:application-inference-profile/*',
      ]),
    );
  });

  it('allows the foundation model in every Region a us./eu./apac./global. profile routes to, only through a profile of this account', () => {
    const routed = generateStatements().find((s) => s.Condition !== undefined);
    expect(routed).toBeDefined();
    const arns = resourcesOf(routed as Statement);
    expect(arns).toEqual(expect.arrayContaining(['arn:<AWS::Partition>:bedrock:*::foundation-model/*', 'arn:<AWS::Partition>:bedrock:::foundation-model/*']));
    const condition = (routed as Statement).Condition?.['ArnLike']?.['bedrock:InferenceProfileArn'];
    expect([condition].flat().map(render)).toEqual([
      'arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:inference-profile/*',
      'arn:<AWS::Partition>:bedrock:<AWS::Region>:<AWS::AccountId>:application-inference-profile/*',
    ]);
  });

  it("may subscribe to a third-party model's Marketplace offer on its first use, and do nothing else in AWS Marketplace", () => {
    const [, statements] = [...statementsByRole(json)].find(([role]) => role.startsWith('PipelineGenerateRole')) ?? [];
    const marketplace = (statements ?? []).filter((s) => actionsOf(s).some((a) => a.startsWith('aws-marketplace:')));
    expect(marketplace).toHaveLength(1);
    expect(actionsOf(marketplace[0] as Statement).sort()).toEqual(['aws-marketplace:Subscribe', 'aws-marketplace:ViewSubscriptions']);
    // No other role of the stack gets a Marketplace action.
    const others = [...statementsByRole(json)].filter(([role]) => !role.startsWith('PipelineGenerateRole')).flatMap(([, s]) => s);
    expect(others.filter((s) => actionsOf(s).some((a) => a.startsWith('aws-marketplace:')))).toEqual([]);
  });
});

describe('SageMaker endpoint invocation', () => {
  it('allows InvokeEndpoint on the endpoints and on the inference components of the stack Region and account', () => {
    const [, statements] = [...statementsByRole(json)].find(([role]) => role.startsWith('PipelineGenerateRole')) ?? [];
    const invoke = (statements ?? []).find((s) => actionsOf(s).includes('sagemaker:InvokeEndpoint'));
    expect(invoke).toBeDefined();
    expect(resourcesOf(invoke as Statement)).toEqual(
      expect.arrayContaining([
        'arn:<AWS::Partition>:sagemaker:<AWS::Region>:<AWS::AccountId>:endpoint/*',
        'arn:<AWS::Partition>:sagemaker:<AWS::Region>:<AWS::AccountId>:inference-component/*',
      ]),
    );
  });
});

describe('names derived from the stack', () => {
  function names(template: TemplateJson): { database: string; workGroup: string; env: Record<string, unknown> } {
    const database = resources(template, 'AWS::Glue::Database')[0]?.[1].Properties['DatabaseInput'] as { Name: string };
    const workGroup = resources(template, 'AWS::Athena::WorkGroup')[0]?.[1].Properties['Name'] as string;
    const api = resources(template, 'AWS::Lambda::Function').find(([id]) => id.startsWith('ApiHandler'))?.[1];
    return { database: database.Name, workGroup, env: (api?.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables };
  }

  it('names the Glue database and Athena workgroup after the stack, and tells the api function', () => {
    const { database, workGroup, env } = names(json);
    expect(database).toBe('polyeval');
    expect(workGroup).toBe('Polyeval');
    expect(env).toMatchObject({ GLUE_DATABASE: 'polyeval', ATHENA_WORKGROUP: 'Polyeval' });
    for (const [, table] of resources(json, 'AWS::Glue::Table')) expect(table.Properties['DatabaseName']).toBe('polyeval');
  });

  it('gives a second stack in the same account names of its own', () => {
    const other = synthPolyeval(NO_BUNDLING, 'Polyeval-Staging').template.toJSON() as TemplateJson;
    const a = names(json);
    const b = names(other);
    expect([b.database, b.workGroup]).not.toEqual([a.database, a.workGroup]);
    expect(b.database).toBe('polyeval_staging');
    expect(b.workGroup).toBe('Polyeval-Staging');
    expect(b.env).toMatchObject({ GLUE_DATABASE: 'polyeval_staging', ATHENA_WORKGROUP: 'Polyeval-Staging' });
    // No other literal physical name is shared either (names CloudFormation would collide on;
    // an inline policy's name is scoped to its role).
    const literalNames = (t: TemplateJson): string[] =>
      Object.values(t.Resources).flatMap((r) =>
        Object.entries(r.Properties ?? {})
          .filter(([key, value]) => /Name$/.test(key) && typeof value === 'string' && !['AttributeName', 'IndexName', 'PolicyName'].includes(key))
          .map(([key, value]) => `${r.Type}.${key}=${String(value)}`),
      );
    const shared = literalNames(json).filter((n) => literalNames(other).includes(n));
    expect(
      shared.filter((n) => /^AWS::(Athena|Glue|SNS|SQS|S3|DynamoDB|Lambda|IAM|Logs|Events|Scheduler|ECS)::/.test(n) && !/DisplayName|Description/.test(n)),
    ).toEqual([]);
  }, 300_000);
});

describe('Athena partitions', () => {
  it('projects every benchmark of the registry, mxeval included, and never the suite name `sample`', () => {
    const tables = resources(json, 'AWS::Glue::Table');
    expect(tables).toHaveLength(2);
    for (const [, table] of tables) {
      const parameters = (table.Properties['TableInput'] as { Parameters: Record<string, string> }).Parameters;
      const values = parameters['projection.benchmark.values']?.split(',');
      expect(values).toEqual(BENCHMARKS.map((b) => b.id));
      expect(values).toContain('mxeval');
      expect(values).not.toContain('sample');
    }
  });
});

describe('alarms', () => {
  it('sends every operational alarm to the alarm topic, which mails -c alarmEmail, and leaves scaling alarms to scaling', () => {
    const [topicId] = resources(json, 'AWS::SNS::Topic')[0] ?? [];
    expect(topicId).toBeDefined();
    const actions = (alarm: Resource): string[] => ((alarm.Properties['AlarmActions'] as unknown[] | undefined) ?? []).map(render);
    const all = resources(json, 'AWS::CloudWatch::Alarm');
    const scaling = all.filter(([, a]) => actions(a).some((action) => /ScalingPolicy|Policy[0-9A-F]{8}>$/.test(action) && !action.includes(String(topicId))));
    const operational = all.filter((entry) => !scaling.includes(entry));
    expect(scaling.length).toBeGreaterThan(0); // the Fargate lane's queue-depth steps
    expect(operational.length).toBe(4); // watchdog errors and missing ticks, nightly and batch errors (the watchdog keeps the queue alarms)
    for (const [id, alarm] of operational) expect(actions(alarm), id).toEqual([`<${topicId}>`]);
    for (const [id, alarm] of scaling) expect(actions(alarm), id).not.toContain(`<${topicId}>`);
    const subscriptions = resources(json, 'AWS::SNS::Subscription').map(([, s]) => s.Properties);
    expect(subscriptions).toEqual([expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topicId } })]);
  });
});

describe('outputs', () => {
  it('names the API URL, the results bucket, the ledger table, the alarm topic and the Athena names', () => {
    const out = Object.fromEntries(Object.entries(json.Outputs).map(([key, o]) => [key, render(o.Value)]));
    const apiId = resources(json, 'AWS::ApiGatewayV2::Api')[0]?.[0];
    const tableId = resources(json, 'AWS::DynamoDB::Table')[0]?.[0];
    const topicId = resources(json, 'AWS::SNS::Topic')[0]?.[0];
    expect(out).toMatchObject({
      ApiUrl: `<${apiId}.ApiEndpoint>`,
      ResultsBucketName: `<${bucketId}>`,
      LedgerTableName: `<${tableId}>`,
      AlarmTopicArn: `<${topicId}>`,
      GlueDatabaseName: 'polyeval',
      AthenaWorkGroupName: 'Polyeval',
    });
  });
});

describe('cost allocation', () => {
  it.each(['AWS::Lambda::Function', 'AWS::SQS::Queue', 'AWS::S3::Bucket', 'AWS::DynamoDB::Table', 'AWS::SNS::Topic', 'AWS::ECS::Cluster', 'AWS::EC2::VPC'])(
    'tags every %s with project and stack',
    (type) => {
      const found = resources(json, type);
      expect(found.length).toBeGreaterThan(0);
      for (const [id, resource] of found) {
        expect(resource.Properties['Tags'], id).toEqual(
          expect.arrayContaining([
            { Key: 'project', Value: 'polyeval' },
            { Key: 'polyeval:stack', Value: 'Polyeval' },
          ]),
        );
      }
    },
  );
});

describe('cost allocation of Fargate tasks', () => {
  it('passes the service tags on to every task it starts', () => {
    const services = resources(json, 'AWS::ECS::Service');
    expect(services.length).toBeGreaterThan(0);
    for (const [id, service] of services) expect(service.Properties['PropagateTags'], id).toBe('SERVICE');
  });
});

describe('lifecycle', () => {
  type Rule = { Status: string; Prefix?: string; ObjectSizeGreaterThan?: string; ExpirationInDays?: number; TagFilters?: unknown };
  function rules(): Rule[] {
    const bucket = json.Resources[bucketId] as Resource;
    return (bucket.Properties['LifecycleConfiguration'] as { Rules: Rule[] }).Rules;
  }
  /** Whether an enabled rule would expire an object of this key and size (S3's filter semantics). */
  function expires(key: string, bytes: number): boolean {
    return rules().some(
      (r) =>
        r.Status === 'Enabled' &&
        r.ExpirationInDays !== undefined &&
        r.TagFilters === undefined &&
        key.startsWith(r.Prefix ?? '') &&
        (r.ObjectSizeGreaterThan === undefined || bytes > Number(r.ObjectSizeGreaterThan)),
    );
  }

  // The manifest and summary the API answers from for ever are the copies plan and aggregate
  // keep under results/runs/ (run-control.test.ts: the API after runs/ expired).
  it.each([
    ['results/runs/r1/manifest.json', 64 * 1024],
    ['results/runs/r1/summary.json', 512 * 1024],
    ['results/records/benchmark=rocode/run_id=r1/part-00000.parquet', 2 * 1024 * 1024],
    ['results/metrics/benchmark=rocode/run_id=r1/metrics.parquet', 50 * 1024 * 1024],
    ['reports/r1.html', 5 * 1024 * 1024],
  ])('keeps %s', (key, bytes) => {
    expect(expires(key, bytes)).toBe(false);
  });

  it.each([
    ['runs/r1/tasks.jsonl', 40 * 1024 * 1024],
    ['runs/r1/items/t~2f~1/0.json', 2 * 1024],
    ['runs/r1/messages/t~2f~1/0.json', 300 * 1024],
    ['runs/r1/manifest.json', 8 * 1024],
    ['athena-results/q.csv', 1024],
  ])('expires the working, regenerable or copied %s', (key, bytes) => {
    expect(expires(key, bytes)).toBe(true);
  });
});

describe('redelivery', () => {
  it('lets every queue a Lambda function consumes deliver a message at least 5 times before its DLQ', () => {
    const consumed = resources(json, 'AWS::Lambda::EventSourceMapping').map(([, m]) => render(m.Properties['EventSourceArn']));
    expect(consumed.length).toBeGreaterThanOrEqual(6);
    for (const arn of consumed) {
      const queueId = /^<(.+)\.Arn>$/.exec(arn)?.[1] ?? '';
      const redrive = json.Resources[queueId]?.Properties['RedrivePolicy'] as { maxReceiveCount: number };
      expect(redrive.maxReceiveCount, queueId).toBeGreaterThanOrEqual(5);
    }
  });
});
