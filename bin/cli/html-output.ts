/** Where a page the CLI renders goes: a file the user names, else a key of the home's store. */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Home } from '#app/local/home.ts';

/** Writes `html` to `output` (when given) or to `key` in the store; returns the file's path. */
export async function writeHtml(home: Home, key: string, html: string, output?: string): Promise<string> {
  if (output) {
    writeFileSync(resolve(output), html);
    return resolve(output);
  }
  await home.store.put(key, html, 'text/html');
  return home.store.locate(key);
}
