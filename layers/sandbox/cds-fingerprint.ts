/**
 * What a class-data-sharing (CDS) archive depends on, as a string to hash into its cache key.
 *
 * HotSpot maps an archive only when the JVM is the build that recorded it and every class-path
 * jar has the size and modification time it had then (OpenJDK 17,
 * `FileMapInfo::validate_shared_path_table` → "A jar file is not the one used while building
 * the shared archive file"). With `-Xshare:auto` a mismatch is silent: the JVM starts without
 * the archive, slower but correct. So an archive keyed by versions alone went stale unnoticed
 * — `npm ci` rewrote kotlin-compiler.jar (same version, new mtime) and every compile server
 * started from the jar. Keying it by this fingerprint rebuilds the archive whenever the JDK
 * or a jar changes.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';

/** `file`'s identity as the JVM checks it: size and modification time (or that it is missing). */
function stamp(file: string): string {
  try {
    const s = statSync(file);
    return `${file} ${s.size} ${s.mtimeMs}`;
  } catch {
    return `${file} missing`;
  }
}

/** The real path of `java` (a bare name is looked up on PATH, as spawn would). */
function realJava(java: string): string {
  const candidates = isAbsolute(java) ? [java] : (process.env['PATH'] ?? '').split(delimiter).map((dir) => join(dir, java));
  for (const candidate of candidates) {
    try {
      return realpathSync(candidate);
    } catch {
      // not in this directory
    }
  }
  return java;
}

/**
 * The fingerprint of the JDK behind `java` (its `release` file, `libjvm.so` and the `modules`
 * image the default archive is built from) and of the class-path `jars`.
 * @example
 * createHash('sha256').update(cdsFingerprint('java', [compilerJar])).digest('hex')
 */
export function cdsFingerprint(java: string, jars: readonly string[]): string {
  const home = dirname(dirname(realJava(java)));
  let release = '';
  try {
    release = readFileSync(join(home, 'release'), 'utf8');
  } catch {
    // a JDK without a release file: the stamps below still identify it
  }
  return [home, release, stamp(join(home, 'lib', 'server', 'libjvm.so')), stamp(join(home, 'lib', 'modules')), ...jars.map(stamp)].join('\n');
}
