// Kotlin programs start from the class-data archive of the JDK and stdlib classes they use
// (layers/sandbox/languages/kotlin-cds.ts) at both isolation levels, and no program can
// change it: a changed archive would change every later program.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sandboxSuite, unitTask } from './helpers.ts';

/** A test that fails unless its JVM was given `archive`, mapped it, and cannot write, remove or rename it. */
const probe = (archive: string): string => `
fun main() {
    val flags = java.lang.management.ManagementFactory.getRuntimeMXBean().inputArguments
    if (flags.none { it == "-XX:SharedArchiveFile=${archive}" }) throw Exception("started without the archive: " + flags)
    // With a given archive it cannot map, HotSpot 17 runs without sharing at all.
    if (!System.getProperty("java.vm.info").contains("sharing")) throw Exception("the archive was not mapped")
    val file = java.io.File("${archive}")
    val wrote = try { java.io.RandomAccessFile(file, "rw").use { it.write(0) }; true } catch (e: Exception) { false }
    // Under bubblewrap the directory around the bound file is the sandbox's own (a file planted
    // there stays in it); the host's directory is checked from outside.
    try { java.io.File(file.parentFile, "planted.jsa").createNewFile() } catch (e: Exception) { }
    if (wrote || file.delete() || file.renameTo(java.io.File(file.path + ".moved"))) throw Exception("the archive is writable")
    if (dublu(2) != 4) throw Exception("dublu")
}
`;

const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

describe.each(['bwrap', 'rlimits'] as const)('the Kotlin programs class-data archive at the %s level', (isolation) => {
  const suite = sandboxSuite(`kotlin-cds-${isolation}`, { concurrency: 1, isolation });

  it('starts programs from the archive, which they cannot write, and keeps their verdicts', async () => {
    const run = (test: string, code: string) =>
      suite.executor.execute({ scorer: 'unit-tests', task: unitTask('kotlin', test, 'dublu'), language: 'kotlin', code });
    // The first run starts the runtime, which dumps the archive in the background.
    const plain = 'fun main() { if (dublu(2) != 4) throw Exception("dublu") }\n';
    expect(await run(plain, 'fun dublu(n: Int): Int = 2 * n\n')).toMatchObject({ verdict: 'OK' });
    let archive: string | undefined;
    for (let i = 0; i < 600 && !archive; i++) {
      archive = readdirSync(suite.dirs.cacheDir).find((name) => /^kotlin-programs-[0-9a-f]{16}\.jsa$/u.test(name));
      if (!archive) await new Promise((r) => setTimeout(r, 500));
    }
    expect(archive).toBeDefined();
    const path = join(suite.dirs.cacheDir, archive as string);
    const before = digest(path);

    const probed = await run(probe(path), 'fun dublu(n: Int): Int = 2 * n\n');
    expect(probed, probed.error).toMatchObject({ verdict: 'OK', testsPassed: 1 });
    expect(await run(probe(path), 'fun dublu(n: Int): Int = 3 * n\n')).toMatchObject({ verdict: 'RE' });
    expect(await run(plain, 'fun dublu(n: Int): Int { kotlin.system.exitProcess(0) }\n')).toMatchObject({ verdict: 'WA' });
    expect(digest(path)).toBe(before);
    expect(readdirSync(suite.dirs.cacheDir).filter((name) => name.includes('planted') || name.endsWith('.moved'))).toEqual([]);
  }, 600_000);
});
