/** Absolute paths of the sources the stack packages, resolved from this file (not the cwd). */
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';

/** The repository root (holds package.json and package-lock.json). */
export const PROJECT_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** `functions/<name>/handler.ts`: the entry of a NodejsFunction. */
export function handlerEntry(name: string): string {
  return path.join(PROJECT_ROOT, 'functions', name, 'handler.ts');
}

/** `layers/images`: the Docker build context of every executor image (one Dockerfile, a stage per image). */
export const IMAGES_CONTEXT = path.join(PROJECT_ROOT, 'layers', 'images');

/** The build arguments that pick an executor image's stage of `layers/images/Dockerfile`. */
export function imageBuildArgs(image: string): { IMAGE: string } {
  return { IMAGE: image };
}
