// The untrusted runner functions as synthesized: a role that can do nothing from function code,
// subnets with no route and no endpoint in a VPC with DNS off, a security group with no rule, no environment, and
// judges (the execute functions and the Fargate tasks) that may invoke exactly their own runner.
import { beforeAll, describe, expect, it } from 'vitest';
import { EXECUTOR_IMAGES } from '../../infra/languages.ts';
import { NO_BUNDLING, synthPolyeval } from './synth.ts';
import { JUDGE_MEMORY_MB } from '../../layers/core/languages/index.ts';
import {
  ACCOUNT_CONCURRENCY,
  FARGATE_TASK_ITEMS,
  judgeMaxConcurrency,
  RUNNER_RESERVED_CONCURRENCY,
  UNQUEUED_ALLOWANCE,
} from '../../layers/app/cloud/concurrency-budget.ts';
import { generateMapping } from '../../layers/app/cloud/generate-mapping.ts';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown; Sid?: string };
let resources: Record<string, Resource>;

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const ref = (value: unknown) => (value as { Ref?: string }).Ref;
const getAttArn = (value: unknown) => ((value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'] ?? [])[0];
const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** Logical ids of the runner functions, by image id (from their description). */
function runnerFunctions(): Map<string, [string, Resource]> {
  const found = new Map<string, [string, Resource]>();
  for (const [id, fn] of ofType('AWS::Lambda::Function')) {
    const description = String(fn.Properties['Description'] ?? '');
    const image = EXECUTOR_IMAGES.find((i) => description.startsWith(`polyeval runner for ${i.languages.join(', ')}:`));
    if (image) found.set(image.id, [id, fn]);
  }
  return found;
}

function statementsOf(roleId: string): Statement[] {
  return ofType('AWS::IAM::Policy')
    .filter(([, p]) => (p.Properties['Roles'] as unknown[]).some((r) => ref(r) === roleId))
    .flatMap(([, p]) => (p.Properties['PolicyDocument'] as { Statement: Statement[] }).Statement);
}

/** Subnet ids (logical) of a subnet group, from the subnet's aws-cdk:subnet-name tag. */
function subnetsOfGroup(group: string): string[] {
  return ofType('AWS::EC2::Subnet')
    .filter(([, s]) => (s.Properties['Tags'] as { Key: string; Value: string }[]).some((t) => t.Key === 'aws-cdk:subnet-name' && t.Value === group))
    .map(([id]) => id);
}

function routeTableOf(subnetId: string): string {
  const association = ofType('AWS::EC2::SubnetRouteTableAssociation').find(([, a]) => ref(a.Properties['SubnetId']) === subnetId);
  if (!association) throw new Error(`no route table for ${subnetId}`);
  return ref(association[1].Properties['RouteTableId']) as string;
}

// With the opt-in Fargate lane, so the runners' isolation is checked beside the one VPC that has endpoints.
beforeAll(() => {
  resources = (synthPolyeval({ ...NO_BUNDLING, fargateLane: true }).template.toJSON() as { Resources: Record<string, Resource> }).Resources;
}, 300_000);

describe('runner functions', () => {
  it('exist for every executor image, from the same image with the runner as the process', () => {
    const runners = runnerFunctions();
    expect([...runners.keys()].sort()).toEqual(EXECUTOR_IMAGES.map((i) => i.id).sort());
    for (const [, fn] of runners.values()) {
      expect(fn.Properties['PackageType']).toBe('Image');
      expect(fn.Properties['ImageConfig']).toEqual({ EntryPoint: ['/var/lang/bin/node'], Command: ['/var/task/runner.mjs'] });
      expect(fn.Properties['Timeout']).toBe(900);
    }
  });

  it('run the very image of their judges (Lambda and Fargate), so the toolchains a judge records are the ones its runner compiles and runs with', () => {
    const runners = runnerFunctions();
    const tasks = ofType('AWS::ECS::TaskDefinition');
    for (const image of EXECUTOR_IMAGES) {
      const judge = ofType('AWS::Lambda::Function').find(([, fn]) => fn.Properties['Description'] === `polyeval executor for ${image.languages.join(', ')}`);
      const uri = JSON.stringify((runners.get(image.id)?.[1].Properties['Code'] as { ImageUri?: unknown } | undefined)?.ImageUri);
      expect(uri, image.id).toMatch(/[0-9a-f]{64}/);
      expect(JSON.stringify((judge?.[1].Properties['Code'] as { ImageUri?: unknown } | undefined)?.ImageUri), image.id).toBe(uri);
      const name = image.id.charAt(0).toUpperCase() + image.id.slice(1);
      const fargate = tasks.filter(([id]) => id.startsWith(`FargateLane${name}Task`));
      expect(fargate, image.id).toHaveLength(1);
      for (const [, task] of fargate) {
        const containers = task.Properties['ContainerDefinitions'] as { Image?: unknown }[];
        expect(
          containers.map((c) => JSON.stringify(c.Image)),
          image.id,
        ).toContain(uri);
      }
    }
  });

  it("give programs the image's memory, and their judges only what judging takes", () => {
    const runners = runnerFunctions();
    for (const image of EXECUTOR_IMAGES) {
      const judge = ofType('AWS::Lambda::Function').find(([, fn]) => fn.Properties['Description'] === `polyeval executor for ${image.languages.join(', ')}`);
      expect(runners.get(image.id)?.[1].Properties['MemorySize'], image.id).toBe(image.memoryMb);
      expect(judge?.[1].Properties['MemorySize'], image.id).toBe(Math.min(image.memoryMb, JUDGE_MEMORY_MB));
    }
    // Kotlin's runner holds its compile server's JVM beside the program's (sized from measured peaks: test/infra/function-memory.test.ts).
    expect(EXECUTOR_IMAGES.find((i) => i.id === 'kotlin')).toMatchObject({ memoryMb: 2048 });
  });

  it('have reserved concurrency, and their Lambda judges a maxConcurrency that, with the Fargate judges, never asks for more', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    for (const image of EXECUTOR_IMAGES) {
      const [, runner] = runnerFunctions().get(image.id) ?? [];
      expect(runner?.Properties['ReservedConcurrentExecutions']).toBe(RUNNER_RESERVED_CONCURRENCY);
    }
    const judges = ofType('AWS::Lambda::Function').filter(([, fn]) => String(fn.Properties['Description'] ?? '').startsWith('polyeval executor for'));
    expect(judges).toHaveLength(EXECUTOR_IMAGES.length);
    for (const [judgeId] of judges) {
      // Two mappings (new items; the runner's invocation records) share the judge's cap.
      const own = mappings.filter(([, m]) => ref(m.Properties['FunctionName']) === judgeId);
      expect(own).toHaveLength(2);
      const max = own.reduce(
        (sum, [, m]) => sum + ((m.Properties['ScalingConfig'] as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency ?? NaN),
        0,
      );
      // Several messages at once, so a task's samples hand off to the runner together, and several runner records come back
      // together (a 5 s window on both: without it on the records, the simulated judge took 2.7 times the invocations).
      const batching = own.map(([, m]) => `${String(m.Properties['BatchSize'])}/${String(m.Properties['MaximumBatchingWindowInSeconds'] ?? 0)}`);
      expect(batching.sort()).toEqual(['10/5', '10/5']);
      // The default config: a Fargate lane of 4 tasks per image, 2 items each.
      expect(max).toBe(judgeMaxConcurrency(4));
      expect((max ?? Infinity) + 4 * FARGATE_TASK_ITEMS).toBeLessThanOrEqual(RUNNER_RESERVED_CONCURRENCY);
    }
  });

  it('reserve what context runnerReservedConcurrency says, and nothing at 0 (an account below 600 concurrent executions can deploy)', () => {
    const synth = (reserved: string) =>
      (synthPolyeval({ ...NO_BUNDLING, runnerReservedConcurrency: reserved }).template.toJSON() as { Resources: Record<string, Resource> }).Resources;
    const reservations = (t: Record<string, Resource>) =>
      Object.values(t)
        .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties['ReservedConcurrentExecutions'] !== undefined)
        .map((r) => r.Properties['ReservedConcurrentExecutions']);
    /** Per Lambda judge, the MaximumConcurrency of its two queue mappings added up (undefined: none). */
    const judgeMaxima = (t: Record<string, Resource>) => {
      const judges = Object.entries(t)
        .filter(([, r]) => r.Type === 'AWS::Lambda::Function' && String(r.Properties['Description'] ?? '').startsWith('polyeval executor for'))
        .map(([id]) => id);
      return judges.map((judge) => {
        const maxima = Object.values(t)
          .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping' && ref(r.Properties['FunctionName']) === judge)
          .map((m) => (m.Properties['ScalingConfig'] as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency);
        expect(maxima).toHaveLength(2);
        return maxima.every((m) => m === undefined) ? undefined : maxima.reduce<number>((sum, m) => sum + (m ?? NaN), 0);
      });
    };
    const none = synth('0');
    expect(reservations(none)).toEqual([]);
    expect(judgeMaxima(none)).toEqual(EXECUTOR_IMAGES.map(() => undefined));
    const twenty = synth('20');
    // The five runners, and the batch stage's one pass at a time (infra/batch.ts).
    expect(reservations(twenty).sort((a, b) => Number(a) - Number(b))).toEqual([1, ...EXECUTOR_IMAGES.map(() => 20)]);
    expect(judgeMaxima(twenty)).toEqual(EXECUTOR_IMAGES.map(() => judgeMaxConcurrency(0, 20))); // no Fargate lane by default
  });

  it("fit every queue mapping into the account's unreserved pool beside generate's maxConcurrency (generate 300)", () => {
    const t = (synthPolyeval({ ...NO_BUNDLING, generateMaxConcurrency: '300' }).template.toJSON() as { Resources: Record<string, Resource> }).Resources;
    const reserved = Object.values(t)
      .filter((r) => r.Type === 'AWS::Lambda::Function')
      .reduce((sum, r) => sum + Number(r.Properties['ReservedConcurrentExecutions'] ?? 0), 0);
    const maxima = Object.values(t)
      .filter((r) => r.Type === 'AWS::Lambda::EventSourceMapping')
      .map((m) => (m.Properties['ScalingConfig'] as { MaximumConcurrency?: number } | undefined)?.MaximumConcurrency);
    // An uncapped mapping can scale out to 1,250 invocations and take the whole pool: every one is capped.
    expect(maxima).not.toContain(undefined);
    // generate's 1,500 calls in flight as 60 invocations of 25 (generate-mapping.ts).
    expect(maxima).toContain(generateMapping(300).maxConcurrency);
    const capped = maxima.reduce<number>((sum, max) => sum + (max ?? 0), 0);
    expect(capped + UNQUEUED_ALLOWANCE).toBeLessThanOrEqual(ACCOUNT_CONCURRENCY - reserved);
  });

  it("send every asynchronous invocation's record, success or failure, to a queue their own Lambda judge consumes; no retries, the longest event age", () => {
    const configs = ofType('AWS::Lambda::EventInvokeConfig');
    const mappings = ofType('AWS::Lambda::EventSourceMapping');
    const judges = ofType('AWS::Lambda::Function').filter(([, fn]) => String(fn.Properties['Description'] ?? '').startsWith('polyeval executor for'));
    for (const [image, [runnerId]] of runnerFunctions()) {
      const config = configs.find(([, c]) => ref(c.Properties['FunctionName']) === runnerId)?.[1];
      expect(config, image).toBeDefined();
      expect(config?.Properties['MaximumRetryAttempts']).toBe(0);
      expect(config?.Properties['MaximumEventAgeInSeconds']).toBe(6 * 3600);
      const destinations = config?.Properties['DestinationConfig'] as { OnSuccess: { Destination: unknown }; OnFailure: { Destination: unknown } };
      const queue = getAttArn(destinations.OnSuccess.Destination);
      expect(getAttArn(destinations.OnFailure.Destination)).toBe(queue);
      // The record budget (runner-handoff.ts) assumes a 1 MiB message.
      expect(ofType('AWS::SQS::Queue').find(([id]) => id === queue)?.[1].Properties['MaximumMessageSize'], image).toBe(1024 * 1024);
      const consumer = mappings.find(([, m]) => getAttArn(m.Properties['EventSourceArn']) === queue)?.[1];
      const judge = judges.find(([id]) => id === ref(consumer?.Properties['FunctionName']))?.[1];
      expect(String(judge?.Properties['Description']), image).toContain(EXECUTOR_IMAGES.find((i) => i.id === image)?.languages[0] ?? '?');
      expect((judge?.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables['RUNNER_HANDOFF']).toBe('async');
    }
  });

  it('get no environment variables: no bucket, table or queue name reaches them', () => {
    for (const [image, [, fn]] of runnerFunctions()) expect(fn.Properties['Environment'], image).toBeUndefined();
  });

  it('have a role that allows only VPC attachment and denies every request from function code', () => {
    for (const [image, [, fn]] of runnerFunctions()) {
      const roleId = getAttArn(fn.Properties['Role']) as string;
      const role = resources[roleId] as Resource;
      expect(role.Properties['ManagedPolicyArns'], image).toBeUndefined();
      expect(role.Properties['Policies'], image).toBeUndefined();
      const statements = statementsOf(roleId);
      expect(statements, image).toHaveLength(3);
      // What Lambda needs to deliver its invocation records (destinations use the execution role), on its own answers queue only.
      const send = statements.find((s) => s.Effect === 'Allow' && actions(s).some((a) => a.startsWith('sqs:'))) as Statement;
      expect(actions(send).sort()).toEqual(['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage']);
      const queueId = getAttArn(send.Resource) as string;
      expect(resources[queueId]?.Type).toBe('AWS::SQS::Queue');
      const allow = statements.find((s) => s.Effect === 'Allow' && s !== send) as Statement;
      expect(actions(allow).sort()).toEqual([
        'ec2:AssignPrivateIpAddresses',
        'ec2:CreateNetworkInterface',
        'ec2:DeleteNetworkInterface',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSubnets',
        'ec2:UnassignPrivateIpAddresses',
      ]);
      const deny = statements.find((s) => s.Effect === 'Deny') as Statement;
      expect(deny).toMatchObject({ Action: '*', Resource: '*', Condition: { Null: { 'lambda:SourceFunctionArn': 'false' } } });
      // No logs: nothing of the runner's reaches CloudWatch, it reports to its judge instead.
      expect(statements.flatMap(actions).some((a) => a.startsWith('logs:'))).toBe(false);
    }
  });

  it('sit in subnets of their own with no route, no gateway-endpoint route and no interface endpoint', () => {
    const runnerSubnets = subnetsOfGroup('runners');
    expect(runnerSubnets.length).toBeGreaterThanOrEqual(2);
    expect(ofType('AWS::EC2::NatGateway')).toEqual([]);
    expect(ofType('AWS::EC2::InternetGateway')).toEqual([]);
    const runnerTables = new Set(runnerSubnets.map(routeTableOf));
    expect(ofType('AWS::EC2::Route').filter(([, r]) => runnerTables.has(ref(r.Properties['RouteTableId']) as string))).toEqual([]);
    for (const [id, endpoint] of ofType('AWS::EC2::VPCEndpoint')) {
      const tables = ((endpoint.Properties['RouteTableIds'] as unknown[]) ?? []).map(ref);
      const subnets = ((endpoint.Properties['SubnetIds'] as unknown[]) ?? []).map(ref);
      expect(
        tables.filter((t) => runnerTables.has(t as string)),
        id,
      ).toEqual([]);
      expect(
        subnets.filter((s) => runnerSubnets.includes(s as string)),
        id,
      ).toEqual([]);
    }
    for (const [image, [, fn]] of runnerFunctions()) {
      const vpc = fn.Properties['VpcConfig'] as { SubnetIds: unknown[]; SecurityGroupIds: unknown[] };
      expect(vpc.SubnetIds.map(ref).sort(), image).toEqual([...runnerSubnets].sort());
      const [sg] = vpc.SecurityGroupIds.map(getAttArn);
      const group = (resources[sg as string] as Resource).Properties;
      // CDK's placeholder for "no egress": one rule to 255.255.255.255/32 on an unused ICMP type.
      expect(group['SecurityGroupEgress']).toEqual([expect.objectContaining({ CidrIp: '255.255.255.255/32', IpProtocol: 'icmp' })]);
      expect(group['SecurityGroupIngress']).toBeUndefined();
      expect(ofType('AWS::EC2::SecurityGroupIngress').filter(([, r]) => getAttArn(r.Properties['GroupId']) === sg)).toEqual([]);
      expect(ofType('AWS::EC2::SecurityGroupEgress').filter(([, r]) => getAttArn(r.Properties['GroupId']) === sg)).toEqual([]);
    }
  });

  it('resolve no name: their subnets are in a VPC of their own with DNS support off, the judges keep theirs', () => {
    const vpcOf = (subnets: string[]) => new Set(subnets.map((s) => ref((resources[s] as Resource).Properties['VpcId'])));
    const [runnerVpc, ...others] = vpcOf(subnetsOfGroup('runners'));
    expect(others).toEqual([]);
    // Security groups and network ACLs do not filter the Amazon DNS server; with DNS support off it does not answer.
    expect((resources[runnerVpc as string] as Resource).Properties).toMatchObject({ EnableDnsSupport: false, EnableDnsHostnames: false });
    // Nothing else lives there: only the runners' ENIs, no endpoint, no judge.
    expect(ofType('AWS::EC2::VPCEndpoint').filter(([, e]) => ref(e.Properties['VpcId']) === runnerVpc)).toEqual([]);
    const [judgeVpc] = vpcOf(subnetsOfGroup('executors'));
    expect(judgeVpc).not.toBe(runnerVpc);
    // The judges' interface endpoints answer at the services' own names, which need the VPC's DNS.
    expect((resources[judgeVpc as string] as Resource).Properties).toMatchObject({ EnableDnsSupport: true });
    // The runners' VPC logs what it rejects, as the judges' does (cdk-nag VPC7).
    expect(ofType('AWS::EC2::FlowLog').filter(([, f]) => ref(f.Properties['ResourceId']) === runnerVpc)).toHaveLength(1);
  });
});

describe('judges', () => {
  it('may invoke exactly their own runner, and nothing else may invoke a runner', () => {
    const runners = runnerFunctions();
    const runnerIds = new Set([...runners.values()].map(([id]) => id));
    const invokers = new Map<string, string[]>();
    for (const [, policy] of ofType('AWS::IAM::Policy')) {
      for (const s of (policy.Properties['PolicyDocument'] as { Statement: Statement[] }).Statement) {
        const targets = (Array.isArray(s.Resource) ? s.Resource : [s.Resource]).map((r) => getAttArn(r) ?? JSON.stringify(r));
        // Whatever names a runner, or may invoke any function (a wildcard), is examined.
        if (!targets.some((t) => runnerIds.has(t) || t === '"*"')) continue;
        if (s.Effect === 'Deny' || !actions(s).some((a) => a.startsWith('lambda:') || a === '*')) continue;
        expect(s.Effect).toBe('Allow');
        expect(actions(s)).toEqual(['lambda:InvokeFunction']);
        expect(targets).toHaveLength(1); // no `:*` version/alias wildcard, no other function
        for (const role of (policy.Properties['Roles'] as unknown[]).map(ref))
          invokers.set(role as string, [...(invokers.get(role as string) ?? []), ...targets]);
      }
    }
    // Every judge: one execute function role and one Fargate task role per image.
    expect(invokers.size).toBe(2 * EXECUTOR_IMAGES.length);
    for (const targets of invokers.values()) {
      expect(targets).toHaveLength(1);
      expect(runnerIds.has(targets[0] as string)).toBe(true);
    }
    for (const [image, [runnerId]] of runners) {
      const judges = [...invokers].filter(([, t]) => t[0] === runnerId).map(([role]) => role);
      expect(judges, image).toHaveLength(2);
      // The judge's function names the same runner it may invoke.
      const judgeFn = ofType('AWS::Lambda::Function').find(([, fn]) => judges.includes(getAttArn(fn.Properties['Role']) as string));
      expect((judgeFn?.[1].Properties['Environment'] as { Variables: Record<string, unknown> }).Variables['RUNNER_FUNCTION_NAME'], image).toEqual({
        Ref: runnerId,
      });
    }
  });

  it("keep the Lambda interface endpoint in the Fargate judges' subnets only", () => {
    const lambdaEndpoint = ofType('AWS::EC2::VPCEndpoint').find(([, e]) => JSON.stringify(e.Properties['ServiceName']).includes('.lambda'));
    expect(lambdaEndpoint, 'a Lambda interface endpoint').toBeDefined();
    expect(((lambdaEndpoint?.[1].Properties['SubnetIds'] as unknown[]) ?? []).map(ref).sort()).toEqual(subnetsOfGroup('executors').sort());
  });
});
