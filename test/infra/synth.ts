/**
 * Synthesizes the polyeval stack for the infra tests exactly as `cdk synth` does (cdk.json's
 * context, feature flags included), with local esbuild bundling only: CDK_DOCKER points at a
 * binary that cannot run, so any fallback to Docker fails the synth instead of hiding.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, type PolicyValidationPluginReport } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { parseConfig } from '../../infra/config.ts';
import { PROJECT_ROOT } from '../../infra/paths.ts';
import { PolyevalStack } from '../../infra/stack.ts';

/** What a synth produced: the template, the cloud assembly folder and cdk-nag's report. */
export interface Synthesized {
  stack: PolyevalStack;
  template: Template;
  outdir: string;
  nag: PolicyValidationPluginReport;
}

/** cdk.json's context, so tests see the same feature flags and defaults as `cdk synth`. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  return cdkJson.context;
}

/** Context that skips asset bundling (CDK's own switch): for tests of the template only. */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] } as const;

/** Synthesizes one stack with cdk.json's context overridden by `overrides`. */
export function synthPolyeval(overrides: Record<string, unknown> = {}, stackName = 'Polyeval'): Synthesized {
  process.env['CDK_DOCKER'] = path.join(tmpdir(), 'polyeval-no-docker-here');
  const context = { ...cdkJsonContext(), ...overrides };
  const outdir = mkdtempSync(path.join(tmpdir(), 'polyeval-cdk-'));
  const app = new App({ outdir, context });
  // Environment-agnostic, as `cdk synth` without credentials: no context lookups, no dummy AZs.
  const stack = new PolyevalStack(app, stackName, { config: parseConfig(context) });
  const nag = new AwsSolutionsChecks(app).validateScope(app);
  const template = Template.fromStack(stack);
  app.synth();
  return { stack, template, outdir, nag };
}
