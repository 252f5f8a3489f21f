// cdk-nag, cfn-lint and packaging checks over one synthesized assembly.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXECUTOR_IMAGES } from '../../infra/languages.ts';
import { synthPolyeval, type Synthesized } from './synth.ts';

const run = promisify(execFile);
let synth: Synthesized;

// W3005 (DependsOn already implied by GetAtt): CDK adds an explicit DependsOn from each function
// to its role's DefaultPolicy, which the GetAtt on the role does not cover; it is harmless.
const IGNORED_CFN_LINT_RULES = ['W3005'];

beforeAll(() => {
  synth = synthPolyeval();
}, 300_000);

describe('compliance', () => {
  it('reports no unacknowledged cdk-nag AwsSolutions error or warning', () => {
    const findings = synth.nag.violations.map(
      (v) => `${v.ruleName} at ${v.violatingResources.map((r) => (r as { constructPath?: string }).constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
  });

  it('passes cfn-lint on the synthesized template', async () => {
    const templatePath = path.join(synth.outdir, 'Polyeval.template.json');
    const result = await run('cfn-lint', ['--format', 'parseable', '--ignore-checks', ...IGNORED_CFN_LINT_RULES, '--', templatePath], {
      timeout: 240_000,
    }).then(
      () => '',
      (error: { stdout?: string; message: string }) => error.stdout || error.message,
    );
    expect(result).toBe('');
  }, 300_000);
});

describe('packaging', () => {
  it('bundles every NodejsFunction locally with esbuild into an ESM index.mjs', () => {
    const assets = JSON.parse(readFileSync(path.join(synth.outdir, 'Polyeval.assets.json'), 'utf8')) as {
      files: Record<string, { source: { path: string; packaging: string } }>;
    };
    const bundles = Object.values(assets.files).filter((f) => f.source.packaging === 'zip');
    // api, plan, generate, aggregate, nightly, watchdog and the batch stage.
    expect(bundles).toHaveLength(7);
    for (const bundle of bundles) expect(existsSync(path.join(synth.outdir, bundle.source.path, 'index.mjs'))).toBe(true);
  });

  it('stages the executor images at synth and leaves the build to deploy', () => {
    const assets = JSON.parse(readFileSync(path.join(synth.outdir, 'Polyeval.assets.json'), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string; platform?: string; dockerBuildArgs?: Record<string, string> } }>;
    };
    const images = Object.values(assets.dockerImages);
    expect(images).toHaveLength(EXECUTOR_IMAGES.length);
    // One Dockerfile, one image per registry entry: the build argument picks the image's stage.
    expect(images.map((image) => image.source.dockerBuildArgs?.IMAGE).sort()).toEqual(EXECUTOR_IMAGES.map((image) => image.id).sort());
    for (const image of images) {
      expect(image.source.platform).toBe('linux/arm64'); // the arm64 default (Lambda's cheaper GB-second)
      expect(existsSync(path.join(synth.outdir, image.source.directory, 'Dockerfile'))).toBe(true);
    }
  });
});
