// `-c architecture=…` (infra/config.ts; arm64 by default, cdk.json): every function runs on it and
// every executor image is built for it — the image's platform in the cloud assembly's asset
// manifest is what `cdk deploy` hands to `docker build --platform`.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_BUNDLING, synthPolyeval } from './synth.ts';

function deployedFor(overrides: Record<string, unknown>): { architectures: string[]; platforms: string[] } {
  const { template, outdir } = synthPolyeval({ ...NO_BUNDLING, ...overrides });
  const json = template.toJSON() as { Resources: Record<string, { Type: string; Properties: { Architectures?: string[] } }> };
  const architectures = Object.values(json.Resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function')
    .flatMap((r) => r.Properties.Architectures ?? ['x86_64']);
  const manifest = readdirSync(outdir).find((f) => f.endsWith('.assets.json'));
  if (manifest === undefined) throw new Error(`no asset manifest in ${outdir}`);
  const assets = JSON.parse(readFileSync(join(outdir, manifest), 'utf8')) as { dockerImages?: Record<string, { source: { platform?: string } }> };
  const platforms = Object.values(assets.dockerImages ?? {}).map((a) => a.source.platform ?? 'none');
  return { architectures, platforms };
}

describe('the deployed architecture', () => {
  it('is arm64 by default, for every function and every executor image', () => {
    const { architectures, platforms } = deployedFor({});
    expect(platforms.length).toBeGreaterThan(0);
    expect(new Set(platforms)).toEqual(new Set(['linux/arm64']));
    expect(new Set(architectures)).toEqual(new Set(['arm64']));
  }, 300_000);

  it('is x86_64 everywhere with -c architecture=x86_64', () => {
    const { architectures, platforms } = deployedFor({ architecture: 'x86_64' });
    expect(new Set(platforms)).toEqual(new Set(['linux/amd64']));
    expect(new Set(architectures)).toEqual(new Set(['x86_64']));
  }, 300_000);
});
