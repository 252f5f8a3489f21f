/**
 * The dependency rule (DESIGN §3): layers/core is pure — no AWS SDK, CDK, middy, process
 * spawning, filesystem or network — and imports nothing outside layers/core.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CORE = join(ROOT, 'layers', 'core');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map(
    (m) => (m[1] ?? m[2]) as string,
  );
}

const FORBIDDEN = [
  /^node:(fs|child_process|net|http|https|dgram|worker_threads)/,
  /^(fs|child_process|net|http|https)$/,
  /^@aws-sdk\//,
  /^aws-cdk-lib/,
  /^@middy\//,
  /^@aws-lambda-powertools\//,
  /^@duckdb\//,
];

describe('layers/core', () => {
  const coreFiles = files(CORE);

  it('has files to check', () => {
    expect(coreFiles.length).toBeGreaterThan(20);
  });

  it.each(coreFiles.map((f) => [relative(ROOT, f), f]))('%s imports no I/O, cloud or process module', (_name, file) => {
    for (const spec of imports(file)) for (const rule of FORBIDDEN) expect(spec, `${file} imports ${spec}`).not.toMatch(rule);
  });

  it.each(coreFiles.map((f) => [relative(ROOT, f), f]))('%s imports nothing outside layers/core', (_name, file) => {
    for (const spec of imports(file)) {
      if (spec.startsWith('.')) expect(resolve(file, '..', spec).startsWith(CORE), `${file} imports ${spec}`).toBe(true);
      else if (spec.startsWith('#')) expect(spec, `${file} imports ${spec}`).toMatch(/^#core\//);
    }
  });
});
