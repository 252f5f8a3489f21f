/**
 * How the compile-server JVM runs, shared by the server itself and the one-time training
 * run that records its class-data-sharing archive (build.ts): the archive is only used by
 * a JVM whose class path and flags match the ones it was recorded with.
 *
 * - C1 only (`TieredStopAtLevel=1`): a run compiles tens to a few thousand programs, while
 *   C2 spends more CPU compiling the compiler than it saves (measured on MBKP: 54
 *   compilations cost 40 CPU-s with C2, 22 with C1 only; after 162 the C2 server still
 *   spent 0.48 CPU-s per compilation).
 * - One JVM with a thread per core rather than a JVM per core: on the same 54 compilations
 *   two 1-thread JVMs cost 35 CPU-s, one 2-thread JVM 28 (class loading and JIT are shared).
 * - AppCDS (`SharedArchiveFile`): the compiler's ~10k classes come parsed and verified
 *   from a memory-mapped archive instead of the 60 MB jar (start-up CPU 9 s → 5 s).
 * - Heap sized for the compiler's allocation pattern (serverHeapFlags, MetaspaceSize): a
 *   compilation allocates ~80 MB of which almost nothing outlives it, but with the default
 *   sizing (a 130 MB young generation in a 380 MB heap) whatever was in flight at a young
 *   collection was promoted, the old generation filled, and full collections followed, some
 *   for the metaspace's 21 MB first threshold. Measured on MBKP's 54 compilations, two in
 *   flight, at load ~20–26: the GC (the VM thread) 7.3–7.5 CPU-s → 1.5, 21–45 pauses → 10
 *   (the heap after a young collection: 23–41 MB).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kotlinHome } from './toolchain.ts';

/** The Java class the server runs as. */
export const SERVER_MAIN_CLASS = 'KotlinCompileServer';
/** File names inside the built server's directory. */
export const SERVER_JAR = 'server.jar';
export const SERVER_ARCHIVE = 'server.jsa';

/** JVM flags of every server JVM (training run included); part of the build hash. */
export const SERVER_JVM_FLAGS: readonly string[] = [
  '-XX:TieredStopAtLevel=1',
  // Serial GC: no concurrent GC threads competing with the compilations (−10 % CPU on MBKP).
  '-XX:+UseSerialGC',
  '-XX:+ExitOnOutOfMemoryError',
  '-XX:-UsePerfData',
  '-Xshare:auto',
  // The compiler loads classes as it goes: no full collection just to find the metaspace's first high-water mark.
  '-XX:MetaspaceSize=256m',
  // JVM warnings go to stderr, never into the protocol on stdout; CDS ones (classes it
  // cannot archive, an archive from another JDK) are expected and silenced.
  '-Xlog:disable',
  '-Xlog:all=warning:stderr',
  '-Xlog:cds*=off:stderr',
  // Keep the compiler's application environment between compilations (as the Kotlin daemon does).
  '-Dkotlin.environment.keepalive=true',
  '-Djava.awt.headless=true',
  '-Dfile.encoding=UTF-8',
];

/**
 * Heap flags of a server JVM with `maxHeapMb` of heap: all of it committed up front (no
 * resizing collections; untouched pages cost nothing) and half of it young, so a
 * compilation's garbage dies young instead of being promoted and collected in full.
 */
export function serverHeapFlags(maxHeapMb: number): string[] {
  return [`-Xmx${maxHeapMb}m`, `-Xms${maxHeapMb}m`, `-Xmn${Math.max(1, Math.floor(maxHeapMb / 2))}m`];
}

/** Class path of a server built into `dir`: a jar (CDS archives no classes from directories). */
export function serverClassPath(dir: string): string {
  return `${join(dir, SERVER_JAR)}:${kotlinHome().compilerJar}`;
}

/** `-XX:SharedArchiveFile=…` when the build recorded an archive, else nothing (plain start). */
export function archiveFlags(dir: string): string[] {
  const archive = join(dir, SERVER_ARCHIVE);
  return existsSync(archive) ? [`-XX:SharedArchiveFile=${archive}`] : [];
}
