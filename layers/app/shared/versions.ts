/**
 * What code ran: the package version, the git revision with a dirty flag, and the versions
 * of the packages that change results — recorded in every manifest.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Manifest } from '#core/run/index.ts';

const TRACKED = ['@duckdb/node-api', 'hyparquet-writer', 'kotlin-compiler', 'zod', '@aws-sdk/client-bedrock-runtime', '@aws-sdk/client-sagemaker-runtime'];

function git(root: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

export function codeVersion(root: string): Manifest['code'] {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string };
  const revision = git(root, ['rev-parse', 'HEAD']);
  const status = revision ? git(root, ['status', '--porcelain', '--untracked-files=no']) : null;
  return { version: pkg.version, revision, dirty: status === null ? null : status.length > 0 };
}

/** `git <args>` without blocking: its output, or null as {@link git}. */
function gitSoon(root: string, args: string[]): Promise<string | null> {
  return new Promise((done) => {
    execFile('git', args, { cwd: root, timeout: 5000 }, (error, stdout) => done(error ? null : stdout.toString().trim()));
  });
}

/**
 * {@link codeVersion} without blocking the event loop, its two git commands at once: a local
 * run starts it first, so git works while the benchmark loads (the same fields, the same values).
 */
export async function codeVersionSoon(root: string): Promise<Manifest['code']> {
  const [revision, status] = await Promise.all([gitSoon(root, ['rev-parse', 'HEAD']), gitSoon(root, ['status', '--porcelain', '--untracked-files=no'])]);
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { version: string };
  return { version: pkg.version, revision, dirty: revision === null || status === null ? null : status.length > 0 };
}

export function packageVersions(root: string): Record<string, string> {
  const out: Record<string, string> = { node: process.version };
  for (const name of TRACKED) {
    try {
      out[name] = (JSON.parse(readFileSync(resolve(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      // not installed: not recorded
    }
  }
  return out;
}
