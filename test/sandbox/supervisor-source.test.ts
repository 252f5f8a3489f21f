// The supervisor is security-critical C: kept in a real .c file so the compiler checks it as C,
// and every build (source run, CLI bundle, executor image) reads that one file.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { supervisorSource } from '#sandbox/supervisor-source.ts';
import { supervisorName } from '#sandbox/supervisor.ts';
import { ROOT } from '../support/cli.ts';

const FILE = join(ROOT, 'layers/sandbox/pe-supervisor.c');

describe('the sandbox supervisor source', () => {
  it('is pe-supervisor.c, read as it is, and names the built binary by its hash', () => {
    expect(supervisorSource()).toBe(readFileSync(FILE, 'utf8'));
    expect(supervisorName()).toMatch(/^pe-supervisor-[0-9a-f]{12}$/);
  });

  it('compiles without a warning under -Wall -Wextra', () => {
    const out = execFileSync('gcc', ['-Wall', '-Wextra', '-Werror', '-fsyntax-only', FILE], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toBe('');
  });
});
