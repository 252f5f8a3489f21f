/**
 * The CDK CLI as a user runs it (`node_modules/.bin/cdk`, what `npx cdk` finds), and the `cdk`
 * commands the docs show. The CLI, not the library: it sets `CDK_DEFAULT_REGION` itself (from
 * `AWS_REGION`, else us-east-1; aws-cdk 2.1148 `prepareDefaultEnvironment`), runs cdk.json's
 * `build` step and bundles every asset, so a synth here meets what `npx cdk synth` meets.
 *
 * No AWS account is reachable: no credentials, no config files, no instance metadata. With a
 * known account the VPC asks for the Region's Availability Zones (a context lookup the CLI makes
 * with the user's credentials and stores); a test with an account gives the answer a lookup
 * would store, as user context in `~/.cdk.json` of a home of its own.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../../infra/paths.ts';

const run = promisify(execFile);

/** Where the CLI runs: a Region (`AWS_REGION`), optionally an account (`CDK_DEFAULT_ACCOUNT`). */
export interface CdkEnvironment {
  region?: string;
  account?: string;
}

/** What a command printed and how it ended. */
export interface CdkResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment of a CLI call: the machine's PATH and nothing of AWS but `where`. */
function cliEnvironment(where: CdkEnvironment): NodeJS.ProcessEnv {
  const home = mkdtempSync(path.join(tmpdir(), 'polyeval-cdk-home-'));
  if (where.account && where.region) {
    const key = `availability-zones:account=${where.account}:region=${where.region}`;
    writeFileSync(path.join(home, '.cdk.json'), JSON.stringify({ context: { [key]: ['a', 'b', 'c'].map((az) => `${where.region}${az}`) } }));
  }
  return {
    PATH: process.env['PATH'],
    HOME: home,
    // npx (cdk.json's app is `npx tsx bin/app.ts`) keeps its cache where it always does.
    npm_config_cache: process.env['npm_config_cache'] ?? path.join(homedir(), '.npm'),
    npm_config_update_notifier: 'false',
    AWS_CONFIG_FILE: path.join(home, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(home, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    // Any fallback to Docker fails the synth instead of hiding (test/infra/synth.ts).
    CDK_DOCKER: path.join(tmpdir(), 'polyeval-no-docker-here'),
    ...(where.region ? { AWS_REGION: where.region, CDK_DEFAULT_REGION: where.region } : {}),
    ...(where.account ? { CDK_DEFAULT_ACCOUNT: where.account } : {}),
  };
}

/** Runs `argv` (`['npx', 'cdk', …]` or `['npm', 'run', …]`) in the project as typed, the CDK CLI through node_modules/.bin. */
export async function runCommand(argv: readonly string[], where: CdkEnvironment = {}): Promise<CdkResult> {
  const [head, second, ...rest] = argv;
  const [file, args] =
    head === 'npx' && second === 'cdk' ? [path.join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk'), rest] : [head ?? '', [second ?? '', ...rest]];
  return run(file, args, { cwd: PROJECT_ROOT, env: cliEnvironment(where), timeout: 600_000, maxBuffer: 64 * 1024 * 1024 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string; message: string }) => ({
      code: typeof error.code === 'number' ? error.code : -1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? error.message,
    }),
  );
}

/** Splits a shell command line into words: single and double quotes, no expansions (what the docs' commands use). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)) words.push(m[1] ?? m[2] ?? m[3] ?? '');
  return words;
}

/** One `cdk` command of a page: the words as typed and the comment lines under it (an expected message). */
export interface DocCommand {
  page: string;
  words: string[];
  comment: string | undefined;
}

/**
 * Every `npx cdk …` command in `text`: each line of a fenced block that starts with it (its
 * trailing `# …` comment dropped, the next line's `# …` kept as what it prints) and each inline
 * `` `npx cdk …` ``.
 */
export function cdkCommands(page: string, text: string): DocCommand[] {
  const found: DocCommand[] = [];
  const lines = text.split('\n');
  let fenced = false;
  lines.forEach((line, i) => {
    if (line.startsWith('```')) fenced = !fenced;
    else if (fenced && line.startsWith('npx cdk ')) {
      const next = lines[i + 1] ?? '';
      const command = line.replace(/\s+#.*$/, '');
      found.push({ page, words: shellWords(command), comment: next.startsWith('# ') ? next.slice(2) : undefined });
    } else if (!fenced) for (const m of line.matchAll(/`(npx cdk [^`]+)`/g)) found.push({ page, words: shellWords(m[1] ?? ''), comment: undefined });
  });
  return found;
}
