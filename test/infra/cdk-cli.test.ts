// `npx cdk synth` and `npx cdk deploy` on a fresh clone, through the CDK CLI as a user types
// them (test/infra/cdk-cli.ts): cdk.json's `build` step (run by the CLI before every synth)
// writes the executor code every image COPYs (layers/images/bundle/), git never tracks that
// output, and every `cdk` command README.md and docs/aws.md show that needs no AWS account
// synthesizes as written, in a Region the CLI knows. One file, so no two of its commands write
// layers/images/bundle/ at once: the build step runs alone (its script empties the folder first),
// and the docs' commands, which differ only in `-c` values, share one bundle and run side by side.
import { execFile, execFileSync, execSync } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/paths.ts';
import { cdkCommands, runCommand, type DocCommand } from './cdk-cli.ts';

const cdkJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { build?: string };

describe('cdk.json build step', () => {
  it('bundles every executor image, so cdk deploy needs no manual step', () => {
    expect(cdkJson.build).toBe('node scripts/bundle-images.mjs');

    execSync(cdkJson.build ?? 'false', { cwd: PROJECT_ROOT, stdio: 'pipe', timeout: 240_000 });

    for (const file of [
      'handler.mjs',
      'consumer.mjs',
      'runner.mjs',
      'prebuild.mjs',
      'pe-supervisor.c',
      'pe-gcc-preload.c',
      'KotlinCompileServer.java',
      'python-checker.py',
      'python-zygote.py',
      'kotlin-cds-classes.txt',
    ]) {
      expect(existsSync(path.join(PROJECT_ROOT, 'layers/images/bundle', file)), `bundle/${file}`).toBe(true);
    }

    // What `docker build` runs: the bundle's prebuild compiles the supervisor from the C source beside it.
    const cache = mkdtempSync(path.join(tmpdir(), 'polyeval-image-cache-'));
    try {
      const out = execFileSync(process.execPath, [path.join(PROJECT_ROOT, 'layers/images/bundle/prebuild.mjs'), 'supervisor'], {
        env: { ...process.env, POLYEVAL_CACHE: cache },
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(out).toMatch(/sandbox supervisor built at .*pe-supervisor-[0-9a-f]{12}/);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  }, 300_000);

  it('keeps layers/images/bundle/ out of git', () => {
    // check-ignore exits 1 (execFileSync throws) when no rule ignores the path.
    const rule = execFileSync('git', ['check-ignore', '--no-index', '-v', 'layers/images/bundle/handler.mjs'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    });
    expect(rule).toMatch(/bundle/);
  });
});

// W3005 as in compliance.test.ts: CDK's explicit DependsOn from a function to its role's policy.
const IGNORED_CFN_LINT_RULES = ['W3005'];

/** cfn-lint's findings on a template, for `region` ('' when clean). */
async function cfnLint(template: string, region: string): Promise<string> {
  return promisify(execFile)('cfn-lint', ['--format', 'parseable', '--ignore-checks', ...IGNORED_CFN_LINT_RULES, '--regions', region, '--', template], {
    timeout: 240_000,
  }).then(
    () => '',
    (error: { stdout?: string; message: string }) => error.stdout || error.message,
  );
}

const output = (): string => mkdtempSync(path.join(tmpdir(), 'polyeval-cdk-out-'));
const template = (outdir: string, stack = 'Polyeval'): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(outdir, `${stack}.template.json`), 'utf8')) as Record<string, unknown>;

describe('npx cdk synth through the CLI', () => {
  it('synthesizes with a Region other than us-east-1 and an account, cdk-nag and cfn-lint clean', async () => {
    const outdir = output();
    const result = await runCommand(['npx', 'cdk', 'synth', '--output', outdir], { region: 'eu-west-1', account: '123456789012' });
    expect(result.stderr).not.toMatch(/cdk-nag/);
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    const text = JSON.stringify(template(outdir));
    // The stack is bound to the Region and account the CLI passed, not environment-agnostic.
    expect(text).toContain(':bedrock:eu-west-1:123456789012:');
    expect(text).toContain('eu-west-1a');
    expect(text).not.toContain('us-east-1');
    expect(await cfnLint(path.join(outdir, 'Polyeval.template.json'), 'eu-west-1')).toBe('');
  }, 900_000);

  it('npm run synth: synthesizes on a fresh clone with no AWS configuration at all (the CLI falls back to us-east-1)', async () => {
    const outdir = output();
    const result = await runCommand(['npm', 'run', 'synth', '--', '--output', outdir]);
    expect(result.stderr).not.toMatch(/cdk-nag/);
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(JSON.stringify(template(outdir))).toContain(':bedrock:us-east-1:');
  }, 900_000);
});

const docCommands: DocCommand[] = ['README.md', 'docs/aws.md'].flatMap((page) => cdkCommands(page, readFileSync(path.join(PROJECT_ROOT, page), 'utf8')));
const contextOnly = (c: DocCommand): boolean => c.words.slice(3).every((w, i, all) => (i % 2 === 0 ? w === '-c' : all[i - 1] === '-c'));
/** What a deploy synthesizes first, and a synth itself: every such command whose only flags are `-c` settings. */
const synthesizable = docCommands
  .filter((c) => ['synth', 'deploy'].includes(c.words[2] ?? '') && contextOnly(c))
  // A command shown twice is run once.
  .filter((c, i, all) => all.findIndex((o) => o.words.join(' ') === c.words.join(' ')) === i);
const label = (c: DocCommand): string => `${c.page}: ${c.words.join(' ')}`;

describe('the cdk commands of README.md and docs/aws.md', () => {
  it('finds them, and leaves out only those that need an account', () => {
    expect(synthesizable.length).toBeGreaterThanOrEqual(8);
    // Bootstrap, destroy and writing a deployment's outputs talk to CloudFormation in an account.
    expect(docCommands.filter((c) => !synthesizable.some((s) => s.words.join(' ') === c.words.join(' '))).map((c) => c.words.join(' '))).toEqual(
      expect.arrayContaining(['npx cdk bootstrap', 'npx cdk deploy --outputs-file outputs.json', 'npx cdk destroy']),
    );
    for (const c of docCommands.filter((c) => !synthesizable.some((s) => s.words.join(' ') === c.words.join(' '))))
      expect(['bootstrap', 'destroy', 'deploy'], label(c)).toContain(c.words[2]);
  });

  // A deploy synthesizes first (the same app, context and cdk-nag); `synth` stands in for `deploy`.
  // The bundle is built once for all of them (the build step is proven above, run as typed by
  // the two synths before): each command is run as written plus `--build true`, which replaces
  // cdk.json's build step (aws-cdk 2.1148 lib/cxapp/exec.js runs `settings.build`, the command
  // line's over cdk.json's), so they can run at once without emptying each other's bundle.
  beforeAll(() => {
    execSync(cdkJson.build ?? 'false', { cwd: PROJECT_ROOT, stdio: 'pipe', timeout: 240_000 });
  }, 300_000);
  const limit = concurrencyLimit(Math.min(4, Math.max(2, availableParallelism())));
  it.concurrent.each(synthesizable.map((c) => [label(c), c] as const))(
    '%s',
    async (_name, command) => {
      const outdir = output();
      const words = [...command.words.slice(0, 2), 'synth', ...command.words.slice(3), '--build', 'true', '--output', outdir];
      const result = await limit(() => runCommand(words, { region: 'eu-west-1' }));
      if (command.comment) {
        // The docs print what the command answers: a refused setting, named.
        expect(result.code).not.toBe(0);
        expect(result.stderr).toContain(command.comment);
      } else {
        expect(result.stderr).not.toMatch(/cdk-nag/);
        expect(result.code, result.stderr.slice(-2000)).toBe(0);
        const stackName = command.words.find((w) => w.startsWith('stackName='))?.slice('stackName='.length) ?? 'Polyeval';
        expect(JSON.stringify(template(outdir, stackName))).toContain(':bedrock:eu-west-1:');
      }
    },
    1_800_000,
  );
});

/** Runs at most `n` of the functions given to it at once, the others in turn. */
function concurrencyLimit(n: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await task();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}
