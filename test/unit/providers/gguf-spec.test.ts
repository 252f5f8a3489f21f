/**
 * The `gguf:` spec and what a machine without a working node-llama-cpp is told. The package
 * is mocked at the module boundary to fail as a missing native binary does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { InputError } from '#core/errors.ts';
import { loadNodeLlamaCpp, optInHint } from '#providers/gguf-engine.ts';
import { defaultGpu, parseGgufSpec } from '#providers/gguf.ts';

vi.mock('node-llama-cpp', () => {
  throw new Error('libllama.so: cannot open shared object file\n(stack)');
});

describe('gguf spec', () => {
  it('takes a path with context size, threads and GPU options', () => {
    expect(parseGgufSpec('gguf:m.gguf#ctx=1024,threads=3,gpu=auto', 'm.gguf#ctx=1024,threads=3,gpu=auto')).toEqual({
      path: 'm.gguf',
      contextSize: 1024,
      threads: 3,
      gpu: 'auto',
    });
    expect(parseGgufSpec('gguf:m.gguf', 'm.gguf')).toMatchObject({ path: 'm.gguf', contextSize: 4096, gpu: defaultGpu() });
  });

  it('defaults to the CPU build, but to Metal on Apple Silicon, whose only prebuilt binary it is', () => {
    expect(defaultGpu('linux', 'x64')).toBe(false);
    expect(defaultGpu('linux', 'arm64')).toBe(false);
    expect(defaultGpu('win32', 'x64')).toBe(false);
    expect(defaultGpu('darwin', 'x64')).toBe(false);
    expect(defaultGpu('darwin', 'arm64')).toBe('auto');
  });

  it('refuses an empty path, a bad number and an unknown option, naming the spec', () => {
    expect(() => parseGgufSpec('gguf:', '')).toThrow(InputError);
    expect(() => parseGgufSpec('gguf:m#ctx=0', 'm#ctx=0')).toThrow(/option ctx must be a positive integer, got "0"/);
    expect(() => parseGgufSpec('gguf:m#gpu=cuda', 'm#gpu=cuda')).toThrow(/unknown option "gpu=cuda"/);
  });
});

describe('node-llama-cpp that cannot load', () => {
  it('is one sentence naming the package and the platform', async () => {
    const err = await loadNodeLlamaCpp().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toContain('node-llama-cpp (3.21.1)');
    expect(err?.message).toContain(`${process.platform}-${process.arch}`);
    expect(err?.message).not.toContain('\n');
  });
});

describe('a Linux ARM machine, whose build the default install leaves out', () => {
  it('is told the command that installs it', () => {
    expect(optInHint('linux', 'arm64')).toContain("npm pkg delete 'overrides.@node-llama-cpp/linux-arm64' && npm install");
    expect(optInHint('linux', 'arm')).toContain("npm pkg delete 'overrides.@node-llama-cpp/linux-armv7l' && npm install");
    expect(optInHint('linux', 'x64')).toBe('');
    expect(optInHint('darwin', 'arm64')).toBe('');
  });

  it('names overrides that package.json really has', () => {
    const overrides = (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8')) as { overrides: Record<string, string> })
      .overrides;
    expect(Object.keys(overrides)).toEqual(expect.arrayContaining(['@node-llama-cpp/linux-arm64', '@node-llama-cpp/linux-armv7l']));
    // riscv64's build lists only riscv64 in its cpu field: npm never installs it elsewhere, so it is not stubbed.
    expect(Object.keys(overrides)).not.toContain('@node-llama-cpp/linux-riscv64');
  });
});
