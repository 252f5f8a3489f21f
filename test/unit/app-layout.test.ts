/**
 * How layers/app is split (DESIGN §3): `local/` serves the CLI on this machine, `cloud/` the
 * deployed functions, `shared/` both. AWS SDK calls live in layers/aws behind ports, so a
 * cloud function's bundle never carries the local adapters and the CLI's wiring never
 * carries AWS clients it does not use.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
const LAYERS = join(ROOT, 'layers');
const APP = join(LAYERS, 'app');

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

/** The file an import names, as a path below the repository root (undefined for packages). */
function target(file: string, spec: string): string | undefined {
  if (spec.startsWith('.')) return relative(ROOT, resolve(file, '..', spec));
  const alias = /^#([a-z]+)\/(.*)$/.exec(spec);
  return alias ? `layers/${alias[1]}/${alias[2]}` : undefined;
}

const cases = (dir: string): [string, string][] => files(dir).map((f) => [relative(ROOT, f), f]);

describe('layers/app', () => {
  it('is split into local/, cloud/ and shared/ with no file left beside them', () => {
    expect(readdirSync(APP).sort()).toEqual(['cloud', 'local', 'shared']);
  });

  it.each(cases(APP))('%s calls no AWS SDK (that is layers/aws, behind a port)', (_name, file) => {
    for (const spec of imports(file)) expect(spec, `${file} imports ${spec}`).not.toMatch(/^@(aws-sdk|smithy|aws-crypto)\//);
  });

  it.each(cases(join(APP, 'shared')))('%s imports neither local/ nor cloud/', (_name, file) => {
    for (const spec of imports(file)) expect(target(file, spec) ?? '', `${file} imports ${spec}`).not.toMatch(/^layers\/app\/(local|cloud)\//);
  });

  it.each(cases(join(APP, 'cloud')))('%s imports nothing of local/ (no local adapter in a function bundle)', (_name, file) => {
    for (const spec of imports(file)) expect(target(file, spec) ?? '', `${file} imports ${spec}`).not.toMatch(/^layers\/(app\/local|local)\//);
  });

  it.each(cases(join(APP, 'local')))('%s imports nothing of cloud/', (_name, file) => {
    for (const spec of imports(file)) expect(target(file, spec) ?? '', `${file} imports ${spec}`).not.toMatch(/^layers\/app\/cloud\//);
  });
});

describe('the adapter layers', () => {
  it.each(['aws', 'local', 'providers', 'sources', 'sandbox'].flatMap((layer) => cases(join(LAYERS, layer))))(
    '%s imports nothing of layers/app',
    (_name, file) => {
      for (const spec of imports(file)) expect(target(file, spec) ?? '', `${file} imports ${spec}`).not.toMatch(/^layers\/app\//);
    },
  );
});
