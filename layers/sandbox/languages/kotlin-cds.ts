/**
 * The class-data-sharing (AppCDS) archive every Kotlin program JVM starts from: the JDK and
 * kotlin-stdlib classes unit-test programs load (kotlin-cds-classes.txt), parsed and verified
 * once by `java -Xshare:dump` instead of at every program's start. Measured on the Kotlin
 * fidelity set's 74 programs, alternating with the default archive on a shared 2-core
 * machine: 259–290 → 186–209 CPU-ms per program JVM (docs/sandbox.md, Performance).
 *
 * The archive records the class path it was dumped with, and HotSpot maps it only for a JVM
 * whose class path starts with that one and whose JDK and jars are the ones recorded
 * (../cds-fingerprint.ts); programs therefore run with `-cp <stdlib>:<classes>` (the stdlib's
 * classes live in packages `kotlin.*` that a program may not declare, so the order changes
 * no lookup). It is keyed by that fingerprint, the flags and the class list: any of them
 * changing makes a new one. A copy that does not match is ignored by the JVM (`-Xshare:auto`:
 * no sharing, same verdicts), but a damaged one crashes it (SIGBUS while relocating), so an
 * archive is only ever passed as it was checked: written under a private name, accepted by a
 * JVM with `-Xshare:on`, made read-only, its size and hash recorded, renamed into place; and
 * each process re-reads its hash once and its size, inode and mtime before every run.
 *
 * A program must never be able to change it (a changed archive would change every later
 * program): it is used only where none can write it — bubblewrap binds it read-only, Landlock
 * lets programs write their working directory only, and otherwise the file and its directory
 * must belong to another uid than the programs' and be writable by no one else (a root
 * harness's cache, the executor image's read-only cache). Where programs run as the harness's
 * own uid with nothing confining them, programs start from the JDK's default archive.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { cdsFingerprint } from '../cds-fingerprint.ts';
import { loadScale } from '../load.ts';
import type { ProgramWriters } from '../runtime.ts';
import { jdkTool, JVM_RUN_FLAGS } from './jvm.ts';

const run = promisify(execFile);

/** Beside this module when run from source; `layers/…` from the bundle in `dist/` and the images. */
const CLASS_LIST_CANDIDATES = [
  new URL('./kotlin-cds-classes.txt', import.meta.url),
  new URL('../layers/sandbox/languages/kotlin-cds-classes.txt', import.meta.url),
].map((url) => fileURLToPath(url));

/** A checked archive and the stdlib jar it was dumped with (the class path's first entry). */
export interface ProgramArchive {
  archive: string;
  stdlib: string;
}

/** The class names to archive (comment lines dropped). */
export function archivedClasses(): string[] {
  const path = CLASS_LIST_CANDIDATES.find((p) => existsSync(p));
  if (!path) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** Where the archive for `stdlib` lives in `dir` (its name holds the key). */
export function archivePath(dir: string, stdlib: string): string {
  const key = createHash('sha256')
    .update(cdsFingerprint(jdkTool('launcher'), [stdlib]))
    .update('\0')
    .update(JVM_RUN_FLAGS.join(' '))
    .update('\0')
    .update(archivedClasses().join('\n'))
    .digest('hex')
    .slice(0, 16);
  return join(dir, `kotlin-programs-${key}.jsa`);
}

const sidecar = (archive: string): string => `${archive}.sha256`;
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Dump flags: the programs' own JVM flags, so the archive matches what they run with. */
function dumpArgs(list: string, archive: string, stdlib: string): string[] {
  return [...JVM_RUN_FLAGS, '-Xshare:dump', `-XX:SharedClassListFile=${list}`, `-XX:SharedArchiveFile=${archive}`, '-cp', stdlib];
}

/**
 * Dumps the archive for `stdlib` into `dir` unless a checked one is there; resolves with its
 * path, or undefined when the JDK cannot make one (then programs start without it). Never throws.
 */
export async function buildProgramArchive(dir: string, stdlib: string): Promise<string | undefined> {
  const archive = archivePath(dir, stdlib);
  if (existsSync(archive) && existsSync(sidecar(archive))) return archive;
  const classes = archivedClasses();
  if (classes.length === 0) return undefined;
  const partial = `${archive}.${process.pid}.tmp`;
  const list = `${partial}.classlist`;
  const limit = Math.round(120_000 * loadScale(1));
  try {
    await writeFile(list, `${classes.join('\n')}\n`);
    await run(jdkTool('launcher'), dumpArgs(list, partial, stdlib), { env: {}, timeout: limit, maxBuffer: 8 << 20 });
    // -Xshare:on makes an archive the JVM would not map an error instead of a silent start without it.
    await run(jdkTool('launcher'), [...JVM_RUN_FLAGS, '-Xshare:on', `-XX:SharedArchiveFile=${partial}`, '-cp', stdlib, '-version'], {
      env: {},
      timeout: limit,
    });
    await chmod(partial, 0o444);
    await writeFile(`${partial}.sha256`, `${statSync(partial).size} ${sha256(await readFile(partial))}\n`, { mode: 0o444 });
    await rename(`${partial}.sha256`, sidecar(archive));
    await rename(partial, archive); // the archive last: whoever sees it sees its sidecar
    return archive;
  } catch {
    return undefined;
  } finally {
    await Promise.all([partial, list, `${partial}.sha256`].map((p) => rm(p, { force: true })));
  }
}

/** Whether no program can write `path` (nor replace it through its directory). */
export function outOfProgramsReach(path: string, writers: ProgramWriters): boolean {
  if (writers.level === 'bwrap' || writers.landlock) return true;
  return [path, dirname(path)].every((p) => {
    try {
      const st = statSync(p);
      return st.uid !== writers.uid && (st.mode & 0o022) === 0;
    } catch {
      return false;
    }
  });
}

/** The identity of a checked archive file, compared before every run. */
interface Checked {
  archive: string;
  ino: number;
  size: number;
  mtimeMs: number;
}
const checked = new Map<string, Checked | 'bad'>();

/**
 * `archive` when it is the file that was checked when it was made (its sidecar's size and
 * hash, once per process; then its inode, size and mtime, on every call), else undefined.
 */
export function verifiedArchive(archive: string): string | undefined {
  let st;
  try {
    st = statSync(archive);
  } catch {
    return undefined;
  }
  const known = checked.get(archive);
  if (known === 'bad') return undefined;
  if (known) return known.ino === st.ino && known.size === st.size && known.mtimeMs === st.mtimeMs ? archive : undefined;
  try {
    const [size, hash] = readFileSync(sidecar(archive), 'utf8').trim().split(' ');
    const ok = Number(size) === st.size && hash === sha256(readFileSync(archive));
    checked.set(archive, ok ? { archive, ino: st.ino, size: st.size, mtimeMs: st.mtimeMs } : 'bad');
    return ok ? archive : undefined;
  } catch {
    checked.set(archive, 'bad');
    return undefined;
  }
}
