// runs/<id>/tasks.jsonl: written by the cloud plan stage, read by generate, execute and
// aggregate. Every bundled suite's tasks read back as written; a snapshot written before
// versions existed still reads; a damaged line is named by key, line and field.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBenchmarkSpec } from '#core/benchmarks/spec.ts';
import { CorruptRecordError } from '#core/errors.ts';
import type { Task } from '#core/types.ts';
import { FsBlobStore } from '#local/index.ts';
import { packageRoot } from '#app/local/home.ts';
import { loadSource } from '#app/shared/load-benchmark.ts';
import { cloudKeys, readTaskSnapshot, serialiseTasks } from '#app/cloud/context.ts';
import { likertTask } from '../../support/tasks.ts';

async function bundledTasks(suite: string): Promise<Task[]> {
  const [source] = parseBenchmarkSpec(suite);
  if (!source) throw new Error(`no source for ${suite}`);
  return (await loadSource(source, { packageRoot: packageRoot(), cacheDir: mkdtempSync(join(tmpdir(), 'polyeval-snapshot-')) })).tasks;
}

const store = (): FsBlobStore => new FsBlobStore(mkdtempSync(join(tmpdir(), 'snapshot-')));

const likert = likertTask({ id: 'abstractness/1' });
const ioTask = {
  id: 'sum',
  benchmark: 'rocode',
  split: 'test',
  slices: {},
  kind: 'io-tests',
  name: 'sum',
  statement: 'Suma a două numere.',
  inputSpec: 'a b',
  outputSpec: 'a+b',
  examples: [{ input: '1 2\n', output: '3\n' }],
  tests: [{ input: '1 2\n', output: '3\n' }],
  timeLimitMs: 1000,
  memoryLimitMb: 64,
  checker: { kind: 'tokens' },
  solutions: {},
};

describe('the task snapshot', () => {
  it.each(['sample/rocode', 'sample/abricot', 'sample/kotlin-humaneval'])('reads back the tasks of %s exactly as plan wrote them', async (suite) => {
    const tasks = await bundledTasks(suite);
    const blobs = store();
    await blobs.put(cloudKeys.tasks('r1'), serialiseTasks(tasks), 'application/x-ndjson');

    expect(tasks.length).toBeGreaterThan(0);
    expect(await readTaskSnapshot(blobs, 'r1')).toEqual(JSON.parse(JSON.stringify(tasks)));
  });

  it('stamps every line with schema_version 1 and reads a snapshot written before versions existed', async () => {
    const blobs = store();
    expect(serialiseTasks([likert as Task]).startsWith('{"schema_version":1,')).toBe(true);

    await blobs.put(cloudKeys.tasks('r1'), `${JSON.stringify(likert)}\n${JSON.stringify(ioTask)}\n`, 'application/x-ndjson');

    expect(await readTaskSnapshot(blobs, 'r1')).toEqual([likert, ioTask]);
  });

  it.each([
    ['a field of the wrong type', JSON.stringify({ ...ioTask, tests: [{ input: 5 }] }), /tasks\.jsonl, line 2, field "tests\.0\.input"/],
    ['a missing field', JSON.stringify({ ...likert, gold: undefined }), /tasks\.jsonl, line 2, field "gold"/],
    ['an unknown kind', JSON.stringify({ ...likert, kind: 'essay' }), /tasks\.jsonl, line 2, field "kind"/],
    ['a torn line', JSON.stringify(ioTask).slice(0, 40), /tasks\.jsonl, line 2: is not JSON/],
    [
      'a newer version',
      JSON.stringify({ ...likert, schema_version: 2 }),
      /tasks\.jsonl, line 2, field "schema_version": schema_version 2 is not one this polyeval reads/,
    ],
  ])('names the key, line and field of %s', async (_what, damaged, message) => {
    const blobs = store();
    await blobs.put(cloudKeys.tasks('r1'), `${serialiseTasks([likert as Task])}${damaged}\n`, 'application/x-ndjson');

    const read = readTaskSnapshot(blobs, 'r1');

    await expect(read).rejects.toBeInstanceOf(CorruptRecordError);
    await expect(read).rejects.toThrow(message);
  });
});
