// A damaged compile-cache entry (a torn or foreign meta.json, a build directory without one)
// through the real sandbox executor: the sample is compiled again and gets its right verdict,
// never one read from the damaged entry.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxSuite, sumTask } from './helpers.ts';

const suite = sandboxSuite('cache-damage', { concurrency: 1 });
const builds = join(suite.dirs.cacheDir, 'builds');

const correct = '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;}\n';
const broken = 'int main(void){ return undefined_thing; }\n';
const run = (code: string) => suite.executor.execute({ scorer: 'io-tests', task: sumTask(), language: 'c', code });

/** The cache entries (build directories) present now. */
function entries(): Set<string> {
  try {
    return new Set(readdirSync(builds).filter((name) => !name.includes('.tmp-')));
  } catch {
    return new Set(); // nothing compiled yet
  }
}

/** Compiles `code` and returns the directory of its new cache entry. */
async function entryOf(code: string, verdict: string): Promise<string> {
  const before = entries();
  expect(await run(code)).toMatchObject({ verdict });
  const [added] = [...entries()].filter((name) => !before.has(name));
  if (added === undefined) throw new Error('no cache entry was written');
  return join(builds, added);
}

describe('a damaged compile-cache entry', () => {
  it('is compiled again: a torn meta.json over a good build still gives OK, and the entry is whole again', async () => {
    const entry = await entryOf(correct, 'OK');
    writeFileSync(join(entry, 'meta.json'), '{"ok":tr');

    expect(await run(correct)).toMatchObject({ verdict: 'OK', testsPassed: 3 });
    expect(JSON.parse(readFileSync(join(entry, 'meta.json'), 'utf8'))).toMatchObject({ schema_version: 1, ok: true });
  });

  it('is compiled again: a foreign meta.json claiming success over a source that does not compile still gives CE', async () => {
    const entry = await entryOf(broken, 'CE');
    writeFileSync(join(entry, 'meta.json'), '{"ok":true}');

    expect(await run(broken)).toMatchObject({ verdict: 'CE' });
  });

  it('is compiled again: a build directory without its meta.json or program still gives OK', async () => {
    const entry = await entryOf(correct.replace('a+b', 'b+a'), 'OK');
    for (const name of readdirSync(entry)) rmSync(join(entry, name), { recursive: true, force: true });

    expect(await run(correct.replace('a+b', 'b+a'))).toMatchObject({ verdict: 'OK', testsPassed: 3 });
  });
});
