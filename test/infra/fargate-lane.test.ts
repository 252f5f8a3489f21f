// The Fargate lane's scale-in safeguards as synthesized: a stop timeout long enough to drain,
// and the task role's permission to set its own scale-in protection (nothing wider).
import { beforeAll, describe, expect, it } from 'vitest';
import { EXECUTOR_IMAGES } from '../../infra/languages.ts';
import { synthPolyeval } from './synth.ts';

type Resource = { Type: string; Properties: Record<string, unknown> };
let resources: Record<string, Resource>;

beforeAll(() => {
  resources = (synthPolyeval().template.toJSON() as { Resources: Record<string, Resource> }).Resources;
}, 300_000);

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
