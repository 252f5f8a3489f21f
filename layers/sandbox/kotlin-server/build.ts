/**
 * Builds the compile server (KotlinCompileServer.java) with `javac` on first use, into
 * `<cache>/kotlin-server/<hash>/`. The hash covers the Java source and the Kotlin version,
 * so editing either rebuilds; concurrent builders (parallel test workers) each build into a
 * private directory and the first atomic rename wins.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HarnessError } from '../../core/errors.ts';
import { cacheDir, jdkTool, jvmEnv, kotlinHome, kotlinVersion } from './toolchain.ts';

const run = promisify(execFile);

/** The Java class the server runs as. */
export const SERVER_MAIN_CLASS = 'KotlinCompileServer';

/** Beside this module when run from source; `layers/…` from the bundle in `dist/`. */
const SOURCE_CANDIDATES = [
  new URL('./KotlinCompileServer.java', import.meta.url),
  new URL('../layers/sandbox/kotlin-server/KotlinCompileServer.java', import.meta.url),
].map((url) => fileURLToPath(url));

let building: Promise<string> | undefined;

/**
 * Returns the directory holding the compiled server classes, building them if needed.
 * @throws HarnessError when the source is missing or `javac` fails.
 */
export function ensureServerBuilt(): Promise<string> {
  building ??= build().catch((error: unknown) => {
    building = undefined; // a later call may succeed (e.g. after installing a JDK)
    throw error;
  });
  return building;
}

async function build(): Promise<string> {
  const sourcePath = SOURCE_CANDIDATES.find((path) => existsSync(path));
  if (!sourcePath) throw new HarnessError(`compile server source not found (looked at ${SOURCE_CANDIDATES.join(', ')})`);
  const source = await readFile(sourcePath, 'utf8');
  const hash = createHash('sha256').update(source).update('\0').update(kotlinVersion()).digest('hex').slice(0, 16);
  const root = join(cacheDir(), 'kotlin-server');
  const target = join(root, hash);
  if (existsSync(join(target, `${SERVER_MAIN_CLASS}.class`))) return target;

  await mkdir(root, { recursive: true });
  const scratch = await mkdtemp(join(root, `.build-${hash}-`));
  try {
    await run(jdkTool('javac'), ['-nowarn', '-encoding', 'UTF-8', '-cp', kotlinHome().compilerJar, '-d', scratch, sourcePath], {
      env: jvmEnv(),
      timeout: 300_000,
      maxBuffer: 4 << 20,
    });
  } catch (cause) {
    await rm(scratch, { recursive: true, force: true });
    const detail = (cause as { stderr?: string }).stderr?.trim();
    throw new HarnessError(`javac failed to build the Kotlin compile server${detail ? `: ${detail}` : ''}`, { cause });
  }
  try {
    await rename(scratch, target);
  } catch (error) {
    // Another process finished first: its build is identical, keep it.
    await rm(scratch, { recursive: true, force: true });
    if (!existsSync(join(target, `${SERVER_MAIN_CLASS}.class`))) {
      throw new HarnessError(`cannot install the compile server into ${target}`, { cause: error });
    }
  }
  return target;
}
