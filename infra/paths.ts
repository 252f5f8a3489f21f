/** Absolute paths of the sources the stack packages, resolved from this file (not the cwd). */
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';

/** The repository root (holds package.json and package-lock.json). */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** `functions/<name>/handler.ts`: the entry of a NodejsFunction. */
export function handlerEntry(name: string): string {
  return path.join(PROJECT_ROOT, 'functions', name, 'handler.ts');
}

/** `layers/images/<image>`: the Docker build context of an executor image. */
export function imageContext(image: string): string {
  return path.join(PROJECT_ROOT, 'layers', 'images', image);
}
