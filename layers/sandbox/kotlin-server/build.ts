/**
 * Builds the compile server (KotlinCompileServer.java) on first use, into
 * `<cache>/kotlin-server/<hash>/`: `javac`, a jar of the class, and a class-data-sharing
 * archive recorded by one training run of the server (jvm-flags.ts says why). The hash
 * covers the Java source, the Kotlin version and compiler jar, the JVM flags, and the JDK and
 * every jar of the distribution as the JVM checks them (../cds-fingerprint.ts: a reinstalled
 * jar or an upgraded JDK would silently void the archive), so any of them changing rebuilds;
 * a recorded archive is kept only if a JVM started with `-Xshare:on` accepts it; concurrent builders (parallel test workers, two runs) each build
 * into a private directory and the first atomic rename wins. Without an archive (training
 * failed) the server starts from the jar, only slower. Each use marks the build used, and
 * once one is ready the builds of other fingerprints unused for a day are removed
 * (cache-prune.ts).
 */
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HarnessError } from '../../core/errors.ts';
import { cdsFingerprint } from '../cds-fingerprint.ts';
import { markUsed, pruneServerCache } from './cache-prune.ts';
import { loadScale } from '../load.ts';
import { SERVER_ARCHIVE, SERVER_JAR, SERVER_JVM_FLAGS, SERVER_MAIN_CLASS, serverClassPath, serverHeapFlags } from './jvm-flags.ts';
import { cacheDir, jdkTool, jvmEnv, kotlinHome, kotlinVersion } from './toolchain.ts';

const run = promisify(execFile);

export { SERVER_MAIN_CLASS };

/** Beside this module when run from source; `layers/…` from the bundle in `dist/`. */
const SOURCE_CANDIDATES = [
  new URL('./KotlinCompileServer.java', import.meta.url),
  new URL('../layers/sandbox/kotlin-server/KotlinCompileServer.java', import.meta.url),
].map((url) => fileURLToPath(url));

/** CPU-bound work of the training run on an idle machine is ~10 s; the limit stretches with load. */
const TRAINING_LIMIT_MS = 120_000;

let building: Promise<string> | undefined;

/**
 * Returns the directory holding the built server (`server.jar`, maybe `server.jsa`),
 * building it if needed.
 * @throws HarnessError when the source is missing or `javac` fails.
 */
export async function ensureServerBuilt(): Promise<string> {
  let dir = await built();
  if (!existsSync(join(dir, SERVER_JAR))) {
    // Removed from under this process (by hand, or pruned after a day unused): build it again.
    building = undefined;
    dir = await built();
  }
  markUsed(dir);
  return dir;
}

function built(): Promise<string> {
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
  const { lib } = kotlinHome();
  const jars = (await readdir(lib)).filter((name) => name.endsWith('.jar')).sort();
  const hash = createHash('sha256')
    .update(source)
    .update('\0')
    .update(kotlinVersion())
    .update('\0')
    .update(kotlinHome().compilerJar)
    .update('\0')
    .update(SERVER_JVM_FLAGS.join(' '))
    .update('\0')
    .update(
      cdsFingerprint(
        jdkTool('java'),
        jars.map((name) => join(lib, name)),
      ),
    )
    .digest('hex')
    .slice(0, 16);
  const root = join(cacheDir(), 'kotlin-server');
  const target = join(root, hash);
  if (existsSync(join(target, SERVER_JAR))) return ready(root, hash);

  await mkdir(root, { recursive: true });
  const scratch = await mkdtemp(join(root, `.build-${hash}-`));
  try {
    await run(jdkTool('javac'), ['-nowarn', '-encoding', 'UTF-8', '-cp', kotlinHome().compilerJar, '-d', scratch, sourcePath], {
      env: jvmEnv(),
      timeout: 300_000,
      maxBuffer: 4 << 20,
    });
    await run(jdkTool('jar'), ['cf', join(scratch, SERVER_JAR), '-C', scratch, `${SERVER_MAIN_CLASS}.class`], { env: jvmEnv(), timeout: 120_000 });
  } catch (cause) {
    await rm(scratch, { recursive: true, force: true });
    const detail = (cause as { stderr?: string }).stderr?.trim();
    throw new HarnessError(`cannot build the Kotlin compile server${detail ? `: ${detail}` : ''}`, { cause });
  }
  // An archive is valid only for the class path it was recorded with, which names the final
  // directory: install first, then train in place (a server started meanwhile runs without it).
  try {
    await rename(scratch, target);
  } catch (error) {
    // Another process finished first: its build is identical, keep it.
    await rm(scratch, { recursive: true, force: true });
    if (!existsSync(join(target, SERVER_JAR))) throw new HarnessError(`cannot install the compile server into ${target}`, { cause: error });
    return ready(root, hash);
  }
  await train(target);
  return ready(root, hash);
}

/** The build `hash`, once the other fingerprints' builds unused for a day are removed. */
async function ready(root: string, hash: string): Promise<string> {
  await pruneServerCache(root, hash);
  return join(root, hash);
}

/**
 * Records `server.jsa`: one server JVM with the production flags and class path compiles
 * its warm-up programs and exits, dumping every class it loaded. Written under a temporary
 * name and renamed, so a concurrent server never maps a half-written archive.
 */
async function train(dir: string): Promise<void> {
  const partial = join(dir, `${SERVER_ARCHIVE}.${process.pid}.tmp`);
  const args = [
    ...SERVER_JVM_FLAGS,
    ...serverHeapFlags(1024),
    `-XX:ArchiveClassesAtExit=${partial}`,
    '-cp',
    serverClassPath(dir),
    SERVER_MAIN_CLASS,
    '1',
    '32',
    '1024',
    '2',
  ];
  const ok = await new Promise<boolean>((resolve) => {
    const child = spawn(jdkTool('java'), args, { env: jvmEnv(), cwd: dir, stdio: ['pipe', 'ignore', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), TRAINING_LIMIT_MS * loadScale(1));
    child.once('error', () => resolve(false));
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end('Q\n'); // read after the warm-ups: the server halts, dumping the archive
  });
  if (ok && existsSync(partial) && (await archiveAccepted(dir, partial))) await rename(partial, join(dir, SERVER_ARCHIVE));
  else await rm(partial, { force: true });
}

/**
 * Whether a JVM with the server's flags and class path maps `archive`: `-Xshare:on` makes a
 * rejected archive an error instead of a silent start without it.
 */
async function archiveAccepted(dir: string, archive: string): Promise<boolean> {
  const args = [...SERVER_JVM_FLAGS, '-Xshare:on', `-XX:SharedArchiveFile=${archive}`, '-cp', serverClassPath(dir), '-version'];
  try {
    await run(jdkTool('java'), args, { env: jvmEnv(), timeout: Math.round(60_000 * loadScale(1)) });
    return true;
  } catch {
    return false;
  }
}
