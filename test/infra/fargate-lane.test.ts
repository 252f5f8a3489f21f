// The opt-in Fargate lane (`-c fargateLane=true`) as synthesized: its VPC's interface and
// gateway endpoints (the hourly cost the default stack does without), the scale-in safeguards
// (a stop timeout long enough to drain, the task role's permission to set its own scale-in
// protection and nothing wider), and cdk-nag clean.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXECUTOR_IMAGES } from '../../infra/languages.ts';
import { interfaceEndpointServices } from '../../infra/network.ts';
import { synthPolyeval, type Synthesized } from './synth.ts';

type Resource = { Type: string; Properties: Record<string, unknown> };
let resources: Record<string, Resource>;
let synth: Synthesized;

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const ref = (value: unknown) => (value as { Ref?: string }).Ref;

beforeAll(() => {
  synth = synthPolyeval({ fargateLane: true });
  resources = (synth.template.toJSON() as { Resources: Record<string, Resource> }).Resources;
}, 300_000);

describe('the opt-in Fargate lane network', () => {
  it("adds the five interface endpoints its tasks need, in the lane's subnets only, and no NAT or internet gateway", () => {
    const endpoints = ofType('AWS::EC2::VPCEndpoint').filter(([, e]) => e.Properties['VpcEndpointType'] === 'Interface');
    expect(endpoints).toHaveLength(5);
    expect(interfaceEndpointServices(true)).toHaveLength(5);
    const names = endpoints.map(([, e]) => JSON.stringify(e.Properties['ServiceName']));
    for (const service of ['.sqs', '.lambda', '.ecr.api', '.ecr.dkr', '.logs'])
      expect(
        names.some((n) => n.includes(service)),
        service,
      ).toBe(true);
    expect(ofType('AWS::EC2::NatGateway')).toEqual([]);
    expect(ofType('AWS::EC2::InternetGateway')).toEqual([]);
    for (const [, subnet] of ofType('AWS::EC2::Subnet')) expect(subnet.Properties['MapPublicIpOnLaunch']).toBe(false);
    const laneSubnets = ofType('AWS::EC2::Subnet')
      .filter(([, s]) => (s.Properties['Tags'] as { Key: string; Value: string }[]).some((t) => t.Key === 'aws-cdk:subnet-name' && t.Value === 'executors'))
      .map(([id]) => id)
      .sort();
    for (const [, e] of endpoints) expect(((e.Properties['SubnetIds'] as unknown[]) ?? []).map(ref).sort()).toEqual(laneSubnets);
    expect(ofType('AWS::ECS::Service').every(([, s]) => JSON.stringify(s.Properties['NetworkConfiguration']).includes('"AssignPublicIp":"DISABLED"'))).toBe(
      true,
    );
  });

  it('limits the S3 and DynamoDB gateway endpoint policies to our bucket and table (and ECR layers)', () => {
    const endpoints = ofType('AWS::EC2::VPCEndpoint').filter(([, e]) => e.Properties['VpcEndpointType'] !== 'Interface');
    expect(endpoints).toHaveLength(2);
    const policies = endpoints.map(([, e]) => JSON.stringify(e.Properties['PolicyDocument']));
    expect(policies.some((p) => /StorageResults[0-9A-F]+/.test(p))).toBe(true);
    expect(policies.some((p) => /StorageLedger[0-9A-F]+/.test(p))).toBe(true);
    for (const p of policies) expect(p).not.toContain('"Resource":"*"');
  });

  it('reports no unacknowledged cdk-nag AwsSolutions error or warning', () => {
    expect(synth.nag.violations.map((v) => v.ruleName)).toEqual([]);
  });

  it('passes cfn-lint, as the default stack does (compliance.test.ts, the same ignored rule)', async () => {
    const templatePath = path.join(synth.outdir, 'Polyeval.template.json');
    const result = await promisify(execFile)('cfn-lint', ['--format', 'parseable', '--ignore-checks', 'W3005', '--', templatePath], { timeout: 240_000 }).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(result).toBe('');
  }, 300_000);
});

describe('the Fargate lane', () => {
  it("gives every consumer Fargate's maximum stop timeout to drain", () => {
    const tasks = Object.values(resources).filter((r) => r.Type === 'AWS::ECS::TaskDefinition');
    expect(tasks.length).toBe(EXECUTOR_IMAGES.length);
    for (const task of tasks) {
      for (const container of task.Properties['ContainerDefinitions'] as { StopTimeout?: number }[]) expect(container.StopTimeout).toBe(120);
    }
  });

  it('sizes every task as the judge it is (2 vCPU, 4 GB: its programs run in the runner Lambdas), as the cost estimate bills it', () => {
    const tasks = Object.values(resources).filter((r) => r.Type === 'AWS::ECS::TaskDefinition');
    for (const task of tasks) expect([task.Properties['Cpu'], task.Properties['Memory']]).toEqual(['2048', '4096']);
  });

  it('lets each task role set scale-in protection on the tasks of its cluster only', () => {
    const policies = Object.entries(resources).filter(
      ([, r]) =>
        (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') &&
        ((r.Properties['Roles'] ?? []) as { Ref: string }[]).some((x) => /^FargateLane.*TaskRole/.test(x.Ref)),
    );
    const statements = policies.flatMap(
      ([, p]) => (p.Properties['PolicyDocument'] as { Statement: { Action: string | string[]; Resource: unknown }[] }).Statement,
    );
    const protection = statements.filter((s) => [s.Action].flat().includes('ecs:UpdateTaskProtection'));
    expect(protection).toHaveLength(EXECUTOR_IMAGES.length);
    for (const s of protection) {
      expect([s.Action].flat().sort()).toEqual(['ecs:GetTaskProtection', 'ecs:UpdateTaskProtection']);
      expect(JSON.stringify(s.Resource)).toMatch(/:task\/",\{"Ref":"FargateLaneCluster[0-9A-F]+"\},"\/\*"/);
    }
  });
});
