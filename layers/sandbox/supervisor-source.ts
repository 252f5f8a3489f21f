/**
 * The C source of `pe-supervisor` (pe-supervisor.c beside this file: what it does and why is
 * in its header). It is read at run time, as the Kotlin compile server's Java source is
 * (kotlin-server/build.ts): from beside this module when running from source, from
 * `layers/sandbox/` when running the CLI bundle in `dist/`, and from beside the bundle in an
 * executor image (scripts/bundle-images.mjs copies it there).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HarnessError } from '#core/errors.ts';

const SOURCE_CANDIDATES = [new URL('./pe-supervisor.c', import.meta.url), new URL('../layers/sandbox/pe-supervisor.c', import.meta.url)].map((url) =>
  fileURLToPath(url),
);

let source: string | undefined;

/**
 * The supervisor's C source, read once.
 * @throws HarnessError when the file is in none of the places a build puts it.
 */
export function supervisorSource(): string {
  if (source === undefined) {
    const path = SOURCE_CANDIDATES.find((p) => existsSync(p));
    if (!path) throw new HarnessError(`sandbox supervisor source not found (looked at ${SOURCE_CANDIDATES.join(', ')})`);
    source = readFileSync(path, 'utf8');
  }
  return source;
}
