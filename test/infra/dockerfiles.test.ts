// hadolint is not installable here (no apt candidate, no registry package), so this is a
// structured lint of the executor Dockerfiles: instructions parsed, then the rules that matter.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/paths.ts';
import { EXECUTOR_IMAGES } from '../../infra/languages.ts';
import { CPP_FLAGS } from '../../layers/sandbox/languages/cpp.ts';

interface Instruction {
  keyword: string;
  args: string;
}

/** Joins continuation lines, drops comments, splits `KEYWORD args`. */
function parseDockerfile(text: string): Instruction[] {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  return logical.map((line) => {
    const [keyword = '', ...rest] = line.split(/\s+/);
    return { keyword: keyword.toUpperCase(), args: rest.join(' ') };
  });
}

const IMAGES = EXECUTOR_IMAGES.map((i) => i.id);
const read = (image: string, file: string): string => readFileSync(path.join(PROJECT_ROOT, 'layers/images', image, file), 'utf8');

describe.each(IMAGES)('the %s executor image', (image) => {
  const instructions = parseDockerfile(read(image, 'Dockerfile'));
  const runs = instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);

  it('builds from the Lambda Node.js 22 base image pinned to a dated tag', () => {
    const from = instructions.filter((i) => i.keyword === 'FROM');
    expect(from).toHaveLength(1);
    expect(from[0]?.args).toMatch(/^public\.ecr\.aws\/lambda\/nodejs:22\.\d{4}\.\d{2}\.\d{2}\.\d{2}$/);
  });

  it('never uses latest, ADD or remote downloads', () => {
    expect(instructions.some((i) => i.args.includes(':latest'))).toBe(false);
    expect(instructions.some((i) => i.keyword === 'ADD')).toBe(false);
    expect(runs.some((r) => /\b(curl|wget)\b/.test(r))).toBe(false);
  });

  it('cleans the package manager caches in every RUN that installs packages', () => {
    for (const r of runs.filter((x) => /dnf install/.test(x))) expect(r).toMatch(/dnf clean all/);
    for (const r of runs.filter((x) => /npm install/.test(x))) expect(r).toMatch(/npm cache clean --force/);
  });

  it('copies only the bundle and runs the execute handler', () => {
    expect(instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args)).toEqual(['bundle/ ${LAMBDA_TASK_ROOT}/']);
    expect(instructions.filter((i) => i.keyword === 'CMD').map((i) => i.args)).toEqual(['["handler.handler"]']);
    expect(read(image, '.dockerignore').split('\n')).toEqual(expect.arrayContaining(['*', '!Dockerfile', '!bundle/']));
  });
});

describe('toolchains', () => {
  it('builds and verifies the C++ PCH with exactly the sandbox compile flags', () => {
    const runs = parseDockerfile(read('cpp', 'Dockerfile'))
      .filter((i) => i.keyword === 'RUN')
      .map((i) => i.args);
    const pch = runs.find((r) => r.includes('prebuild.mjs cpp'));
    expect(pch).toBeDefined();
    expect(pch).toContain(`g++ ${CPP_FLAGS.join(' ')} -Winvalid-pch`);
    expect(pch).toMatch(/grep -q '\^! \.\*stdc\+\+\\\.h\\\.gch'/);
  });

  it('installs JDK 17 and the kotlin-compiler version package.json pins', () => {
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const text = read('kotlin', 'Dockerfile');
    expect(text).toContain('java-17-amazon-corretto-devel');
    expect(text).toContain(`kotlin-compiler@${pkg.dependencies['kotlin-compiler']}`);
  });

  it('installs JDK 17 in the java image and the lodash version package.json pins in the javascript image', () => {
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(read('java', 'Dockerfile')).toContain('java-17-amazon-corretto-devel');
    expect(read('javascript', 'Dockerfile')).toContain(`lodash@${pkg.dependencies['lodash']}`);
  });

  it('installs python3 in the python image', () => {
    expect(read('python', 'Dockerfile')).toMatch(/dnf install -y [^\n]*python3/);
  });
});

describe('what every image holds for the sandbox', () => {
  it.each(IMAGES)('%s builds the supervisor at image build time into the read-only image cache', (image) => {
    const runs = parseDockerfile(read(image, 'Dockerfile'))
      .filter((i) => i.keyword === 'RUN')
      .map((i) => i.args);
    expect(runs.some((r) => r.includes('prebuild.mjs supervisor'))).toBe(true);
    const lock = runs.find((r) => r.includes('chmod 0711 /var/lang/bin/node'));
    expect(lock, 'node execute-only: the handler is non-dumpable for the Lambda user').toBeDefined();
    expect(lock).toContain('chmod -R a+rX,go-w "${POLYEVAL_CACHE}"');
    // The lock comes last, after everything that runs node as root at build time.
    expect(runs.at(-1)).toBe(lock);
  });

  it.each(['python', 'kotlin'])('%s needs no gcc at run time: the RUN that installs it for the supervisor removes it', (image) => {
    const runs = parseDockerfile(read(image, 'Dockerfile'))
      .filter((i) => i.keyword === 'RUN')
      .map((i) => i.args);
    for (const r of runs.filter((x) => /dnf install[^&]*\bgcc\b/.test(x))) {
      expect(r).toContain('prebuild.mjs supervisor');
      expect(r).toMatch(/dnf remove -y gcc/);
    }
  });
});
