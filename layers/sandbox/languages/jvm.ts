/**
 * What a sandboxed JVM needs, for the Java and Kotlin runtimes: start-up flags and the JDK
 * configuration that lives outside /usr.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Flags of a program's JVM: serial GC and C1 only (fewer threads, faster start for
 * short unit tests), no perf-data file, the CDS archive when present, deep recursion room.
 */
export const JVM_RUN_FLAGS: readonly string[] = ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData', '-Xshare:auto', '-Xss64m'];

/** JVM configuration outside /usr (Debian links the JDK's conf/ into /etc/java-<n>-openjdk). */
export function jvmEtc(): string[] {
  try {
    return readdirSync('/etc').filter((n) => n.startsWith('java-')).map((n) => join('/etc', n));
  } catch {
    return [];
  }
}
