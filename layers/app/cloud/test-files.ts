/**
 * Large io-tests leave the task as files: loading spills them into plan's local cache
 * (load-benchmark.ts), which no executor can see. Plan publishes each spilled file to the
 * store under the run (`runs/<run>/tests/<name>`, named by content hash) and rewrites the
 * test's path to that key; executors read such keys back from the store.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { HarnessError } from '#core/errors.ts';
import type { BlobStore } from '#core/ports.ts';
import type { TestFileLoader } from '#core/judging/index.ts';
import { isIoTestsTask } from '#core/scorers/index.ts';
import type { IoTest, Task } from '#core/types.ts';

const testKey = (runId: string, path: string) => `runs/${runId}/tests/${basename(path)}`;

/** Uploads every test file of the tasks and returns the tasks pointing at the store keys. */
export async function publishTestFiles(store: BlobStore, runId: string, tasks: readonly Task[]): Promise<Task[]> {
  const published = new Map<string, string>();
  const publish = async (path: string | undefined): Promise<string | undefined> => {
    if (path === undefined) return undefined;
    let key = published.get(path);
    if (key === undefined) {
      key = testKey(runId, path);
      await store.put(key, await readFile(path), 'text/plain; charset=utf-8');
      published.set(path, key);
    }
    return key;
  };
  const out: Task[] = [];
  for (const task of tasks) {
    if (!isIoTestsTask(task) || !task.tests.some((t) => t.inputPath !== undefined || t.outputPath !== undefined)) {
      out.push(task);
      continue;
    }
    const tests: IoTest[] = [];
    for (const test of task.tests) {
      const inputPath = await publish(test.inputPath);
      const outputPath = await publish(test.outputPath);
      tests.push({ ...test, ...(inputPath ? { inputPath } : {}), ...(outputPath ? { outputPath } : {}) });
    }
    out.push({ ...task, tests });
  }
  return out;
}

/** The executor's loader for published test files. */
export function storeTestLoader(store: BlobStore): TestFileLoader {
  return async (key) => {
    const text = await store.getText(key);
    if (text === undefined) throw new HarnessError(`test file ${store.locate(key)} is missing`);
    return text;
  };
}
