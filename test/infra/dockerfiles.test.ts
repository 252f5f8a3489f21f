// hadolint is not installable here (no apt candidate, no registry package), so this is a
// structured lint of the executor Dockerfile: instructions parsed, then the rules that matter.
// One Dockerfile builds every executor image: a base stage (what every image shares), one
// stage per image of the registry `FROM base`, and the executor stage that locks the chosen
// image down (`--build-arg IMAGE=<id>`, as infra/paths.ts imageBuildArgs passes it).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, imageBuildArgs } from '../../infra/paths.ts';
import { EXECUTOR_IMAGES } from '../../infra/languages.ts';
import { CPP_FLAGS } from '../../layers/sandbox/languages/cpp.ts';

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  from: string;
  name: string;
  instructions: Instruction[];
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

/** The stages of a Dockerfile, each from its `FROM <image> AS <name>` to the next FROM. */
function stagesOf(instructions: readonly Instruction[]): Stage[] {
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [from = '', , name = ''] = instruction.args.split(/\s+/);
      stages.push({ from, name, instructions: [] });
    } else stages.at(-1)?.instructions.push(instruction);
  }
  return stages;
}

const read = (file: string): string => readFileSync(path.join(PROJECT_ROOT, 'layers/images', file), 'utf8');
const instructions = parseDockerfile(read('Dockerfile'));
const stages = stagesOf(instructions);
const stage = (name: string): Stage => {
  const found = stages.find((s) => s.name === name);
  if (!found) throw new Error(`no stage ${name} in layers/images/Dockerfile`);
  return found;
};
const runsOf = (s: Stage): string[] => s.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
const allRuns = stages.flatMap(runsOf);
const IMAGES = EXECUTOR_IMAGES.map((i) => i.id);

describe('the executor Dockerfile', () => {
  it('builds the base from the Lambda Node.js 22 image pinned to a dated tag, once', () => {
    expect(stages[0]?.name).toBe('base');
    expect(stages[0]?.from).toMatch(/^public\.ecr\.aws\/lambda\/nodejs:22\.\d{4}\.\d{2}\.\d{2}\.\d{2}$/);
    expect(instructions.filter((i) => i.keyword === 'FROM' && i.args.startsWith('public.ecr.aws'))).toHaveLength(1);
  });

  it('has one stage per image of the registry, each built on the base, and ends in the executor stage of the chosen image', () => {
    const imageStages = stages.slice(1, -1);
    expect(imageStages.map((s) => s.name).sort()).toEqual([...IMAGES].sort());
    for (const s of imageStages) expect(s.from, s.name).toBe('base');
    expect(stages.at(-1)).toMatchObject({ from: '${IMAGE}', name: 'executor' });
    expect(instructions[0]).toEqual({ keyword: 'ARG', args: 'IMAGE' });
    expect(Object.keys(imageBuildArgs('python'))).toEqual(['IMAGE']);
  });

  it('never uses latest, ADD or remote downloads', () => {
    expect(instructions.some((i) => i.args.includes(':latest'))).toBe(false);
    expect(instructions.some((i) => i.keyword === 'ADD')).toBe(false);
    expect(allRuns.some((r) => /\b(curl|wget)\b/.test(r))).toBe(false);
  });

  it('cleans the package manager caches in every RUN that installs packages', () => {
    for (const r of allRuns.filter((x) => /dnf install/.test(x))) expect(r).toMatch(/dnf clean all/);
    for (const r of allRuns.filter((x) => /npm install/.test(x))) expect(r).toMatch(/npm cache clean --force/);
  });

  it('copies only the bundle, in the base, and runs the execute handler', () => {
    expect(instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args)).toEqual(['bundle/ ${LAMBDA_TASK_ROOT}/']);
    expect(stage('base').instructions.some((i) => i.keyword === 'COPY')).toBe(true);
    expect(instructions.filter((i) => i.keyword === 'CMD').map((i) => i.args)).toEqual(['["handler.handler"]']);
    expect(read('.dockerignore').split('\n')).toEqual(expect.arrayContaining(['*', '!Dockerfile', '!bundle/']));
  });

  it('writes the shared blocks once: bubblewrap, the supervisor build and the credential lock', () => {
    expect(allRuns.filter((r) => r.includes('bubblewrap'))).toHaveLength(1);
    expect(runsOf(stage('base')).some((r) => r.includes('bubblewrap'))).toBe(true);
    expect(allRuns.filter((r) => r.includes('prebuild.mjs supervisor'))).toHaveLength(1);
    expect(allRuns.filter((r) => r.includes('chmod 0711 /var/lang/bin/node'))).toHaveLength(1);
  });
});

describe('toolchains', () => {
  it('builds and verifies the C++ PCH with exactly the sandbox compile flags', () => {
    const pch = runsOf(stage('cpp')).find((r) => r.includes('prebuild.mjs cpp'));
    expect(pch).toBeDefined();
    expect(pch).toContain(`g++ ${CPP_FLAGS.join(' ')} -Winvalid-pch`);
    expect(pch).toMatch(/grep -q '\^! \.\*stdc\+\+\\\.h\\\.gch'/);
  });

  it('installs JDK 17 and the kotlin-compiler version package.json pins', () => {
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const kotlin = runsOf(stage('kotlin')).join('\n');
    expect(kotlin).toContain('java-17-amazon-corretto-devel');
    expect(kotlin).toContain(`kotlin-compiler@${pkg.dependencies['kotlin-compiler']}`);
    expect(kotlin).toContain('prebuild.mjs kotlin');
  });

  it('installs JDK 17 in the java image and the lodash version package.json pins in the javascript image', () => {
    const pkg = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(runsOf(stage('java')).join('\n')).toContain('java-17-amazon-corretto-devel');
    expect(runsOf(stage('javascript')).join('\n')).toContain(`lodash@${pkg.dependencies['lodash']}`);
  });

  it("runs programs with Python 3.11, the local reference's minor version, not Amazon Linux 2023's python3 (3.9)", () => {
    const python = stage('python');
    expect(python.instructions.filter((i) => i.keyword === 'ARG').map((i) => i.args)).toEqual(['PYTHON_VERSION=3.11']);
    const install = runsOf(python).join('\n');
    expect(install).toContain('dnf install -y --setopt=install_weak_deps=False "python${PYTHON_VERSION}"');
    expect(install).not.toMatch(/dnf install[^&]* python3 /); // the distribution's own python3 is not what runs programs
    // On PATH before /usr/bin (the sandbox takes the first python3 there: test/sandbox/python-interpreter.test.ts),
    // and the build fails unless that python3 is the version asked for — found on the image's own PATH, not
    // one the check puts /usr/local/bin at the head of (that would pass whatever the image's PATH says).
    expect(install).toContain('ln -s "/usr/bin/python${PYTHON_VERSION}" /usr/local/bin/python3');
    expect(install).toMatch(/&& python3 -I -c "[^"]*assert v == '\$\{PYTHON_VERSION\}'/);
    expect(install).not.toMatch(/PATH=[^ ]* python3/);
  });
});

describe('what every image holds for the sandbox', () => {
  it('builds the supervisor in the base at image build time, with gcc removed in the same RUN', () => {
    const supervisor = runsOf(stage('base')).find((r) => r.includes('prebuild.mjs supervisor'));
    expect(supervisor).toMatch(/dnf install[^&]*\bgcc\b/);
    expect(supervisor).toMatch(/dnf remove -y gcc/);
  });

  it.each(IMAGES.filter((id) => id !== 'cpp'))('%s needs no gcc at run time: its stage installs none', (image) => {
    expect(runsOf(stage(image)).some((r) => /dnf install[^&]*\bgcc\b/.test(r))).toBe(false);
  });

  it('locks the image last, in the executor stage, after everything that runs node as root', () => {
    const lock = allRuns.find((r) => r.includes('chmod 0711 /var/lang/bin/node'));
    expect(lock, 'node execute-only: the handler is non-dumpable for the Lambda user').toBeDefined();
    expect(lock).toContain('chmod -R a+rX,go-w "${POLYEVAL_CACHE}"');
    expect(runsOf(stage('executor'))).toEqual([lock]);
    expect(allRuns.at(-1)).toBe(lock);
  });
});
