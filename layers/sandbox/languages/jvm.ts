/**
 * How a sandboxed program JVM runs, for every JVM language (Java, Kotlin): one definition
 * of its flags, its memory bounds and the JDK files it needs outside /usr.
 *
 * Memory: the heap is capped with -Xmx (an OutOfMemoryError is MLE), and RLIMIT_AS bounds
 * everything else (direct buffers, native allocations, thread stacks) at the heap plus what
 * the JVM reserves without using. Measured on OpenJDK 17 with these flags (VmPeak of a
 * trivial program): the heap + ~1000 MB at -Xmx64m, -Xmx256m and -Xmx1024m alike — mostly the
 * 64 MB stacks of the JVM's own threads, the class space and the code cache (capped below:
 * their 1 GB and 240 MB defaults are reserved in full), with glibc held to two malloc arenas
 * (each further one reserves 64 MB). JVM_RESERVED_MB leaves room for about eight program
 * threads; a thread bomb ends "unable to create native thread" (MLE) well before that count.
 */
import { readdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { RunCommand } from '../runtime.ts';

/**
 * Flags of a program's JVM: serial GC and C1 only (fewer threads, faster start for short
 * unit tests), no perf-data file, the CDS archive when present, deep recursion room, the
 * class space and code cache reserved at sizes a contest program cannot outgrow, and the
 * JVM's log on stderr.
 */
export const JVM_RUN_FLAGS: readonly string[] = [
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-XX:-UsePerfData',
  '-Xshare:auto',
  '-Xss64m',
  '-XX:CompressedClassSpaceSize=64m',
  '-XX:ReservedCodeCacheSize=32m',
  // The JVM's own warnings (a thread it could not start, a CDS archive it cannot use) go to
  // stderr, never into the program's output: a thread bomb would otherwise flood stdout (OLE).
  '-Xlog:disable',
  '-Xlog:all=warning:stderr',
];

/** Address space a program JVM may use beyond its -Xmx heap (RLIMIT_AS = heap + this). */
export const JVM_RESERVED_MB = 1536;

/** The program JVM's environment: two malloc arenas, so its address space stays predictable. */
const JVM_ENV: Record<string, string> = { MALLOC_ARENA_MAX: '2' };

/** The JDK's launcher and compiler, by the links Debian puts under /usr/bin. */
const JDK_TOOLS = { launcher: '/usr/bin/java', compiler: '/usr/bin/javac' } as const;

/** A JDK tool, by its real path (the sandbox shows /usr, not the alternatives links' targets elsewhere). */
export function jdkTool(tool: keyof typeof JDK_TOOLS): string {
  const link = JDK_TOOLS[tool];
  try {
    return realpathSync(link);
  } catch {
    return link;
  }
}

/** JVM configuration outside /usr (Debian links the JDK's conf/ into /etc/java-<n>-openjdk). */
export function jvmEtc(): string[] {
  try {
    return readdirSync('/etc')
      .filter((n) => n.startsWith('java-'))
      .map((n) => join('/etc', n));
  } catch {
    return [];
  }
}

/**
 * The command that runs `mainClass` from `classPath` with `memoryMb` of heap. `readOnly`
 * lists the class path's entries (the JDK's own files are added here). `sharedArchive`: a
 * checked class-data archive dumped for the class path's first entry (kotlin-cds.ts), bound
 * read-only like the class path.
 */
export function jvmRunCommand(p: {
  classPath: string[];
  mainClass: string;
  memoryMb: number;
  args: string[];
  readOnly: string[];
  sharedArchive?: string | undefined;
}): RunCommand {
  const archive = p.sharedArchive === undefined ? [] : [`-XX:SharedArchiveFile=${p.sharedArchive}`];
  return {
    argv: [jdkTool('launcher'), `-Xmx${p.memoryMb}m`, ...JVM_RUN_FLAGS, ...archive, '-cp', p.classPath.join(':'), p.mainClass, ...p.args],
    readOnly: [...p.readOnly, ...(p.sharedArchive === undefined ? [] : [p.sharedArchive]), ...jvmEtc()],
    env: JVM_ENV,
    addressSpaceMb: p.memoryMb + JVM_RESERVED_MB,
    heapCapped: true,
    // The JVM's own threads (GC, compiler, finalizer, …) count against RLIMIT_NPROC.
    processes: 128,
    // The JIT and GC threads burn CPU on other cores.
    cpuFactor: 2,
  };
}

/**
 * Whether a JVM's stderr says it ran out of memory: an OutOfMemoryError (heap, direct
 * buffers, native threads), or the JVM's own report of a failed native allocation.
 */
export function jvmOutOfMemory(stderr: string): boolean {
  return /java\.lang\.OutOfMemoryError|insufficient memory for the Java Runtime Environment/u.test(stderr);
}
