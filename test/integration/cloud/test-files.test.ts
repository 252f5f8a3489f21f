// Spilled io-tests reach the executors through the store, not plan's local disk.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { IoTestsTask, Task } from '#core/types.ts';
import { FsBlobStore } from '#local/index.ts';
import { publishTestFiles, storeTestLoader } from '#app/cloud/test-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'polyeval-test-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function ioTask(tests: IoTestsTask['tests']): IoTestsTask {
  return {
    kind: 'io-tests',
    id: 'p/1',
    benchmark: 'rocode',
    split: 'test',
    slices: {},
    name: 'p',
    statement: '',
    inputSpec: '',
    outputSpec: '',
    examples: [],
    tests,
    timeLimitMs: 1000,
    memoryLimitMb: 64,
    checker: { kind: 'tokens' },
    solutions: {},
  };
}

describe('published test files', () => {
  it('uploads each spilled test once under the run and reads it back by key', async () => {
    const store = new FsBlobStore(join(dir, 'store'));
    const input = join(dir, 'abc123.txt');
    writeFileSync(input, '1 2\n');
    const tasks: Task[] = [
      ioTask([
        { inputPath: input, outputPath: input },
        { input: '3', output: '3' },
      ]),
    ];

    const [published] = (await publishTestFiles(store, 'r1', tasks)) as IoTestsTask[];

    expect(published?.tests[0]).toEqual({ inputPath: 'runs/r1/tests/abc123.txt', outputPath: 'runs/r1/tests/abc123.txt' });
    expect(published?.tests[1]).toEqual({ input: '3', output: '3' });
    expect(await storeTestLoader(store)('runs/r1/tests/abc123.txt')).toBe('1 2\n');
    await expect(storeTestLoader(store)('runs/r1/tests/missing.txt')).rejects.toThrow(/missing/);
  });
});
