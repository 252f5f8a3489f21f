/**
 * The `gguf:` spec and what a machine without a working node-llama-cpp is told. The package
 * is mocked at the module boundary to fail as a missing native binary does.
 */
import { describe, expect, it, vi } from 'vitest';
import { InputError } from '#core/errors.ts';
import { loadNodeLlamaCpp } from '#providers/gguf-engine.ts';
import { parseGgufSpec } from '#providers/gguf.ts';

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
    expect(parseGgufSpec('gguf:m.gguf', 'm.gguf')).toMatchObject({ path: 'm.gguf', contextSize: 4096, gpu: false });
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
