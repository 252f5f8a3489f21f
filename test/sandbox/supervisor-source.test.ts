// The supervisor is security-critical C: kept in a real .c file so the compiler checks it as C,
// and every build (source run, CLI bundle, executor image) reads that one file.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { supervisorSource } from '#sandbox/supervisor-source.ts';
import { buildSupervisor, supervisorName } from '#sandbox/supervisor.ts';
import { ROOT } from '../support/cli.ts';

const FILE = join(ROOT, 'layers/sandbox/pe-supervisor.c');

/** An x86-64/AArch64 ELF64 file's type (ET_DYN = 3: position-independent) and whether it names a program interpreter (PT_INTERP). */
function elf(path: string): { type: number; interpreter: boolean } {
  const b = readFileSync(path);
  const phoff = Number(b.readBigUInt64LE(0x20));
  const phentsize = b.readUInt16LE(0x36);
  const phnum = b.readUInt16LE(0x38);
  let interpreter = false;
  for (let i = 0; i < phnum; i++) if (b.readUInt32LE(phoff + i * phentsize) === 3) interpreter = true;
  return { type: b.readUInt16LE(0x10), interpreter };
}

describe('the sandbox supervisor source', () => {
  it('is pe-supervisor.c, read as it is, and names the built binary by its hash', () => {
    expect(supervisorSource()).toBe(readFileSync(FILE, 'utf8'));
    expect(supervisorName()).toMatch(/^pe-supervisor-[0-9a-f]{12}$/);
  });

  it('is built position-independent (randomised), and without the dynamic loader where a static libc is installed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pe-sup-link-'));
    try {
      writeFileSync(join(dir, 'probe.c'), 'int main(void) { return 0; }\n');
      const staticLibc = spawnSync('gcc', ['-static-pie', '-o', join(dir, 'probe'), join(dir, 'probe.c')]).status === 0;
      const binary = await buildSupervisor(dir);
      const { type, interpreter } = elf(binary);
      expect(type).toBe(3);
      expect(interpreter).toBe(!staticLibc);
      expect(execFileSync(binary, ['--probe'], { encoding: 'utf8' })).toMatch(/^seccomp=[01] landlock=\d+$/mu);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts the program with clone(CLONE_VM | CLONE_VFORK): no copy of its page tables before the exec', async () => {
    // strace -f prints each process-creating call of the supervisor with its flags; fork()
    // would show as clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD).
    const dir = mkdtempSync(join(tmpdir(), 'pe-sup-clone-'));
    try {
      const binary = await buildSupervisor(dir);
      const args = ['10000', '20000', '0', '1048576', '64', '64', '-1', '-', '--', '/bin/true'];
      const traced = spawnSync('strace', ['-f', '-qq', '-e', 'trace=clone,clone3,fork,vfork', binary, ...args], { encoding: 'utf8' });
      expect(traced.error, 'strace is needed for this test (apt-get install strace; .ci/run installs it)').toBeUndefined();
      expect(traced.status).toBe(0);
      const calls = traced.stderr.split('\n').filter((l) => /^(\[pid +\d+\] )?(clone3?|v?fork)\(/u.test(l));
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatch(/flags=CLONE_VM\|CLONE_VFORK\|SIGCHLD\)/u);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('gives the program no blocked or ignored signal of its own (it blocks all of them around clone)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pe-sup-sigs-'));
    try {
      const binary = await buildSupervisor(dir);
      const status = execFileSync(binary, ['10000', '20000', '0', '1048576', '64', '64', '-1', '-', '--', '/bin/cat', '/proc/self/status'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      });
      expect(status).toMatch(/^SigBlk:\s+0+$/mu);
      expect(status).toMatch(/^SigIgn:\s+0+$/mu);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('compiles without a warning under -Wall -Wextra', () => {
    const out = execFileSync('gcc', ['-Wall', '-Wextra', '-Werror', '-fsyntax-only', FILE], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toBe('');
  });
});
