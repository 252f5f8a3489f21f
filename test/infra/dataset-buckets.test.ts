// `-c datasetBuckets=a,b` in the synthesized stack: read on the named buckets for exactly the
// functions that read datasets and replay files (plan, generate, the batch stage), the api and
// nightly functions told what runs may read (READABLE_S3), cdk-nag clean; a bad name is refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../infra/config.ts';
import { cdkJsonContext, NO_BUNDLING, synthPolyeval, type Synthesized } from './synth.ts';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Statement = { Action: string | string[]; Resource: unknown };
let synth: Synthesized;
let resources: Record<string, Resource>;

/** Logical ids of the roles whose policies allow `action` on a resource mentioning `text`. */
function rolesAllowing(action: string, text: string): string[] {
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((p) =>
      (p.Properties['PolicyDocument'] as { Statement: Statement[] }).Statement.some(
        (s) => [s.Action].flat().includes(action) && JSON.stringify(s.Resource).includes(text),
      ),
    )
    .flatMap((p) => (p.Properties['Roles'] as { Ref: string }[]).map((r) => r.Ref))
    .sort();
}

/** READABLE_S3 of every function that has it, by logical id, rendered. */
function readableS3(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [id, r] of Object.entries(resources)) {
    const value = (r.Properties['Environment'] as { Variables?: Record<string, unknown> } | undefined)?.Variables?.['READABLE_S3'];
    if (r.Type === 'AWS::Lambda::Function' && value !== undefined) out[id] = JSON.stringify(value);
  }
  return out;
}

beforeAll(() => {
  synth = synthPolyeval({ ...NO_BUNDLING, datasetBuckets: 'team-data,shared-evals' });
  resources = (synth.template.toJSON() as { Resources: Record<string, Resource> }).Resources;
}, 300_000);

describe('datasetBuckets', () => {
  it('lets plan, generate and the batch stage, and no other function, read the named buckets', () => {
    for (const bucket of ['team-data', 'shared-evals']) {
      const readers = rolesAllowing('s3:GetObject', `:s3:::${bucket}/*`);
      expect(readers, bucket).toEqual([
        expect.stringMatching(/^BatchHandlerRole/),
        expect.stringMatching(/^PipelineGenerateRole/),
        expect.stringMatching(/^PipelinePlanRole/),
      ]);
      expect(rolesAllowing('s3:ListBucket', `:s3:::${bucket}"`)).toHaveLength(3);
    }
  });

  it('tells the api and nightly functions what runs may read: datasets/ and runs/ of the results bucket, and the named buckets', () => {
    const env = readableS3();
    expect(Object.keys(env).sort()).toEqual([expect.stringMatching(/^ApiHandler/), expect.stringMatching(/^NightlyHandler/)]);
    for (const value of Object.values(env)) {
      expect(value).toMatch(/\/datasets\/,/);
      expect(value).toMatch(/\/runs\/,team-data\/,shared-evals\//);
    }
  });

  it('passes cdk-nag with the wildcard on the buckets’ keys acknowledged', () => {
    expect(synth.nag.violations.map((v) => v.ruleName)).toEqual([]);
  });

  it('grants nothing without the setting, and refuses a name S3 would refuse, naming the key', () => {
    expect(parseConfig(cdkJsonContext()).datasetBuckets).toEqual([]);
    expect(parseConfig({ ...cdkJsonContext(), datasetBuckets: '["a-bucket"]' }).datasetBuckets).toEqual(['a-bucket']);
    expect(() => parseConfig({ ...cdkJsonContext(), datasetBuckets: 'Team_Data' })).toThrow(/context "datasetBuckets.*S3 bucket names/);
  });
});
