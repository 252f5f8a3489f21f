/** Where a page the CLI renders goes: a file the user names, else a key of the home's store. */
import { writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InputError } from '#core/errors.ts';
import type { Home } from '#app/local/home.ts';
import { makeDirsSync } from '#local/index.ts';

/** Writes `html` to `output` (when given; its folder is created) or to `key` in the store; returns the file's path. */
export async function writeHtml(home: Home, key: string, html: string, output?: string): Promise<string> {
  if (output) {
    const path = resolve(output);
    try {
      makeDirsSync(dirname(path));
      writeFileSync(path, html);
    } catch (err) {
      throw new InputError(`cannot write ${path}: ${(err as Error).message}`, { field: 'output' }, { cause: err });
    }
    return path;
  }
  await home.store.put(key, html, 'text/html');
  return home.store.locate(key);
}
